#!/usr/bin/env bash
# Install what the browser end-to-end tests (tests/e2e) need on a fresh Debian machine:
# the distribution's chromium (Playwright drives it through executable_path, since
# `playwright install` cannot download browsers here), the Playwright Python package, and
# axe-core for the accessibility tests (in the axe-playwright-python package).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
fi

$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

PYTHON=${PYTHON:-python3}   # `make e2e-deps` passes the project's .venv/bin/python
"$PYTHON" -m pip install "playwright>=1.40" "axe-playwright-python>=0.1.8"

echo "chromium: $(command -v chromium)"
"$PYTHON" -c "from importlib.metadata import version; print('playwright', version('playwright'))"
