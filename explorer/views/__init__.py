"""What each page computes, as pure functions of its knob values (and the device): numbers and arrays,
no Streamlit and no text, so every claim a page makes can be unit-tested here. One module per page id."""
