"""Renderers: tables, Markdown, plots and HTML, all drawn from ``Results`` data."""
