"""RoPE Explorer: `streamlit run app.py`. The router lives in explorer.router."""

from explorer.router import main

main()
