"""What tests and benchmarks share: starting and watching an app server (`support.server`) and talking
to it the way a browser does, over Streamlit's websocket protocol (`support.protocol`)."""
