#!/usr/bin/env bash
# The project's whole test suite: lint, format, pytest and lit. Fails if any of them fails.
set -u
cd "$(dirname "$0")/.."
# Use the project's venv (made by the README's install command) unless one is already active.
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f .venv/bin/activate ]; then . .venv/bin/activate; fi
status=0
run() { echo "== $*"; "$@" || status=1; }
run ruff check tilec test/py tools bench examples
run ruff format --check tilec test/py tools bench examples
run python -m pytest -q test/py
run lit -sv test/lit
exit $status
