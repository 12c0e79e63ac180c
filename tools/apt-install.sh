#!/usr/bin/env bash
# Installs the Debian packages given that are not installed yet (apt-get update first, once).
# Usage: bash tools/apt-install.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -gt 0 ] || exit 0
printf '\033[1m[setup]\033[0m apt-get install %s\n' "${missing[*]}" >&2
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
