"""Python modules that MLIR's bindings find for dialects tilec defines at run time (see tile/context.py's
`_register_opview_namespace`)."""
