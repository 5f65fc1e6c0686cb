#!/usr/bin/env bash
# Byte-compile the project's sources (what changed since the last run; 0.4 s otherwise).
# pip byte-compiles what it installs, but not an editable project, and a machine that sets
# PYTHONDONTWRITEBYTECODE never writes the bytecode as modules are imported: every
# episode's portal and apps would compile the project's sources again at each start.
# Run by installer/bootstrap.sh and by the make targets that start episodes.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m compileall -q -j 0 sandbox episodes verifier portal_web \
  pixel_stream desktop_ehr fixtures
