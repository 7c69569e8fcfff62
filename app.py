"""RoPE Explorer: `streamlit run app.py`. The router lives in explorer.router."""

# The package first, then its router: every script of the app takes the import locks in this order
# (a page script starts with `import explorer`). Importing explorer.router first would lock the
# submodule before its package, and a page script run at the same moment in another session (the
# first visits after a start) would get a half-imported explorer.router: "cannot import name 'enter'".
import explorer  # noqa: F401
from explorer.router import main

main()
