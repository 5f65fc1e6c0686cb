#!/usr/bin/env bash
# Byte-compile the project's sources (what changed since the last run; 0.4 s otherwise).
# pip byte-compiles what it installs, but not an editable project, and a machine that sets
# PYTHONDONTWRITEBYTECODE never writes the bytecode as modules are imported: every
# episode's portal and apps would compile the project's sources again at each start.
# Then the portals' ICD-10-CM index (portal_web.common.icd10cm), made once per machine:
# made by the first portal that needs it instead, it costs that request 3 CPU-seconds.
# Run by installer/bootstrap.sh and by the make targets that start episodes.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m compileall -q -j 0 sandbox episodes verifier portal_web \
  pixel_stream desktop_ehr fixtures
exec .venv/bin/python -c "from portal_web.common import icd10cm
icd10cm.cache_file().exists() or icd10cm.codes()"
