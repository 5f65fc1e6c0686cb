#!/usr/bin/env bash
# Installs everything EHR Sandbox needs on a Debian 12 machine, then the project itself
# into .venv (editable, with the dev and ray extras:
# CI runs the Ray backend's test). Idempotent: a second run only checks.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

DEBIAN_PACKAGES=(
  # the interpreter and venv (a bare Debian 12, e.g. the worker image, has neither)
  python3 python3-venv
  # displays, window manager, X tools
  xvfb openbox x11-utils x11-xserver-utils xdotool
  # XTEST input, DAMAGE and MIT-SHM capture through libX11 (pixel_stream.xtest_c,
  # pixel_stream.xcapture_c: ctypes)
  libx11-6 libxtst6 libxext6 libxdamage1
  # browser (Debian's own build; Playwright drives it, never downloads one)
  chromium
  # fonts
  fonts-dejavu-core fonts-liberation fonts-liberation2
  # libraries Qt 6 (PySide6) needs for the xcb platform plugin
  libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
  libegl1 libgl1 libfontconfig1 libdbus-1-3 libglib2.0-0
  # the streaming peer measured against in benchmarks
  x11vnc novnc websockify
  # looking at what we build, and editing stores by hand in tests
  poppler-utils sqlite3 procps
)

say() { printf '[bootstrap] %s\n' "$*"; }

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "installed ${#missing[@]} Debian packages"
else
  say "Debian packages: all ${#DEBIAN_PACKAGES[@]} present"
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.installed-pyproject.sha256
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing the project (editable, dev, agents and ray extras) into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[dev,agents,ray]'
  echo "$want" > "$stamp"
  say "project installed"
else
  say "Python packages: up to date with pyproject.toml"
fi
say "byte-compiling the project's sources"
bash installer/compile.sh
say "ready: .venv/bin/ehr-sandbox"
