"""`python -m tilec`: the installation report of `tilec --version`."""

from tilec.cli import entry

entry()
