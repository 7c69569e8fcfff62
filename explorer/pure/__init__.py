"""The pure layer of the app: what it computes, says and draws, with no Streamlit anywhere below here.

- sitemap: the page list in teaching order, one name per topic (its address with underscores);
- knobs / knob_types: each page's knobs declared once, and how a URL value is parsed and repaired;
- views/<page>.py: what each page computes and claims, as functions of its knob values, with the questions
  that end it (questions.py words them);
- figures: Plotly figure builders, and figures/style.py, the one home of colours, fonts and margins;
- text/<lang>/<page>.toml: every string a visitor reads; safe_text: outside text kept inert;
- exports / animation_export: a chart's CSV and file name, the animations as GIFs;
- timing: the live cost measurements some views make.

A test (tests/ui/test_imports.py) checks that importing any of these loads no Streamlit.
"""
