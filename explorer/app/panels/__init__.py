"""A page's figures in the visitor's language: one module per topic page (tests/test_layout.py requires it),
holding the page's cached data (`explorer.cached` around its view's functions) and its labelled figures: a
view's numbers drawn by an `explorer.pure.figures` builder with the page's text (`explorer.figure` keeps those
drawn from cached data, once per language). The page places what these return; the numbers and the claims
stay in its view."""
