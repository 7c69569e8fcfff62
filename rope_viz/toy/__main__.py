"""`python -m rope_viz.toy train ...` / `python -m rope_viz.toy grid`: see runner.main."""

from .runner import main

raise SystemExit(main())
