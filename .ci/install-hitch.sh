#!/bin/sh
# .ci/install-hitch.sh — installs hitch, the TLS terminator in front of Varnish, for
# test/deploy/hitch-varnish-tls.test.ts on Debian/Ubuntu. Idempotent: does nothing when
# `hitch --version` already runs. Needs openssl too (the test makes its CA with it).
set -eu

export DEBIAN_FRONTEND=noninteractive

SUDO=''
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-hitch: need root or sudo" >&2; exit 1; }
  SUDO='sudo -E'
fi

if ! hitch --version >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { echo "install-hitch: no apt-get; install hitch and openssl by hand" >&2; exit 1; }
  # Refresh package lists only when apt does not know the packages yet (fresh containers ship none).
  if ! apt-cache show hitch openssl >/dev/null 2>&1; then
    $SUDO apt-get update -qq >/dev/null
  fi
  $SUDO apt-get install -y -qq --no-install-recommends hitch openssl >/dev/null
  # The package's unit waits for /etc/hitch/hitch.conf; tests start their own hitch on loopback.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now hitch.service >/dev/null 2>&1 || true
  fi
  hitch --version >/dev/null 2>&1 || { echo "install-hitch: hitch still does not run" >&2; exit 1; }
fi
echo "install-hitch: $(hitch --version 2>&1 | head -n 1)"
