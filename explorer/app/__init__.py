"""The Streamlit layer of the app: what runs inside the server, between the page scripts and explorer.pure.

- router: page config, the sidebar, navigation; client_guard: every widget value a client sends checked
  before Streamlit uses it;
- session: the visitor's device, language and notices; widgets: knobs drawn and kept in the URL;
- cache: the one caching policy (`cached` for data, `figure` for labelled figures), with cache_guard, what
  a cached function may not read;
- panels/<page>.py: each page's cached data and labelled figures; place, presenter, quiz, tryit,
  glossary, latex: how they are placed on a page; components: points dragged on a chart;
- memory, live_budget, live_run: freed memory given back, and the server's one live training run (its
  budget and registry; its button and progress).
"""
