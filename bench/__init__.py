"""Benchmarks and the load script for the app (they start the app with support.server)."""
