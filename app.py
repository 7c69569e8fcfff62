"""RoPE Explorer: `streamlit run app.py`. The router lives in explorer.app.router."""

from explorer.app.router import main

main()
