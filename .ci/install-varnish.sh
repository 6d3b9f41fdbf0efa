#!/bin/sh
# .ci/install-varnish.sh — installs varnishd (>= 7) and vmod_xkey for the gateway tests
# (test/deploy/varnish-*.test.ts) on Debian/Ubuntu. Idempotent: does nothing when
# varnishd can already compile a VCL that imports xkey. Debian 12 / Ubuntu 24.04 ship
# Varnish 7.1 with varnish-modules 0.20 (which provides vmod_xkey for it).
set -eu

export DEBIAN_FRONTEND=noninteractive

SUDO=''
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-varnish: need root or sudo" >&2; exit 1; }
  SUDO='sudo -E'
fi

# True when varnishd exists and resolves `import xkey` (the real test, rather than guessing
# the vmod directory, which differs between distributions).
have_varnish_xkey() {
  command -v varnishd >/dev/null 2>&1 || return 1
  dir=$(mktemp -d)
  # varnishd started as root reads -f as the unprivileged `varnish` user (unix jail).
  chmod 755 "$dir"
  printf 'vcl 4.1;\nimport xkey;\nimport purge;\nbackend default none;\n' >"$dir/probe.vcl"
  chmod 644 "$dir/probe.vcl"
  if varnishd -C -n "$dir/n" -f "$dir/probe.vcl" >/dev/null 2>&1; then rc=0; else rc=1; fi
  rm -rf "$dir"
  return $rc
}

if ! have_varnish_xkey; then
  command -v apt-get >/dev/null 2>&1 || { echo "install-varnish: no apt-get; install varnish >= 7 and varnish-modules by hand" >&2; exit 1; }
  # Refresh package lists only when apt does not know the packages yet (fresh containers ship none).
  if ! apt-cache show varnish varnish-modules >/dev/null 2>&1; then
    $SUDO apt-get update -qq >/dev/null
  fi
  $SUDO apt-get install -y -qq --no-install-recommends varnish varnish-modules >/dev/null
  # The package enables a system varnishd on *:6081; tests start their own on loopback.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now varnish.service varnishncsa.service >/dev/null 2>&1 || true
  fi
  have_varnish_xkey || { echo "install-varnish: varnishd still cannot import vmod_xkey" >&2; exit 1; }
fi

# The VCL calls the split builtin subroutines (vcl_builtin_backend_response, vcl_req_host),
# which exist from Varnish 7.0 on.
major=$(varnishd -V 2>&1 | sed -n 's/.*varnish-\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
if [ -n "$major" ] && [ "$major" -lt 7 ]; then
  echo "install-varnish: varnishd $major.x found; deploy/varnish/roa.vcl needs Varnish >= 7" >&2
  exit 1
fi
echo "install-varnish: $(varnishd -V 2>&1 | head -n 1) with vmod_xkey"
