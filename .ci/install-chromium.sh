#!/bin/sh
# .ci/install-chromium.sh — installs Debian's chromium for the browser tests (playwright-core drives
# /usr/bin/chromium; the pinned playwright-core 1.64.1 matches Debian's Chromium 156). Idempotent:
# does nothing when chromium already runs.
set -eu

export DEBIAN_FRONTEND=noninteractive

SUDO=''
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-chromium: need root or sudo" >&2; exit 1; }
  SUDO='sudo -E'
fi

if ! /usr/bin/chromium --version >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { echo "install-chromium: no apt-get; install chromium by hand" >&2; exit 1; }
  if ! apt-cache show chromium >/dev/null 2>&1; then
    $SUDO apt-get update -qq >/dev/null
  fi
  $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  /usr/bin/chromium --version >/dev/null 2>&1 || { echo "install-chromium: chromium still does not run" >&2; exit 1; }
fi
echo "install-chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
