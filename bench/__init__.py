"""Benchmarks and the load script for the app, and the Streamlit server they and the browser tests share."""
