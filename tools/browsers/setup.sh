#!/usr/bin/env bash
# Installs, idempotently, what the browser tests and benchmarks need (tools/test.sh runs it; the
# main job does not need browsers): Debian's three engines and the drivers of tools/browsers.
#   chromium            Chromium, driven by playwright-core
#   firefox-esr         Firefox ESR, driven by puppeteer-core over WebDriver BiDi
#   webkit2gtk-driver   WebKitGTK's WebKitWebDriver and MiniBrowser, driven by selenium-webdriver
#   xvfb                the X display WebKitGTK needs (it has no headless mode)
# Never a browser downloaded by a driver package. Safe to run again: it skips what is there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
say() { printf '\033[1m[browsers]\033[0m %s\n' "$*" >&2; }

apt_pkgs=(chromium firefox-esr webkit2gtk-driver xvfb)
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -d "$here/node_modules" ] || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
  say "npm ci (tools/browsers)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
