"""Python modules that MLIR's bindings find for dialects tilec defines at run time (see tile.py's
`_register_opview_namespace`)."""
