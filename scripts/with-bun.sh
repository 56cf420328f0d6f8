#!/bin/sh
# Runs a command with Bun and the project's dependencies in place, installing
# what is missing: Bun from the npm registry (a fresh machine needs only
# Node.js and npm), then `bun install` from the lockfile.
set -e
BUN_VERSION=1.4.5
cd "$(dirname "$0")/.."

find_bun() {
  command -v bun >/dev/null 2>&1 && return 0
  for dir in "$(npm prefix -g 2>/dev/null)/bin" "$PWD/.tools/node_modules/.bin"; do
    if [ -x "$dir/bun" ]; then PATH="$dir:$PATH"; export PATH; return 0; fi
  done
  return 1
}

if ! find_bun; then
  # Into the checkout's own .tools/ folder: a global install would change (or need root for) npm's global prefix.
  echo "[atelier] Bun not found: installing Bun $BUN_VERSION from the npm registry into .tools/ (npm's global prefix is left alone)" >&2
  log=$(mktemp)
  if ! npm install --prefix .tools --no-save --no-audit --no-fund "bun@$BUN_VERSION" >"$log" 2>&1 || ! find_bun; then
    echo "[atelier] could not install Bun with npm. npm said:" >&2
    tail -n 15 "$log" | sed 's/^/    /' >&2
    if grep -qiE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network|fetch failed|proxy' "$log"; then
      echo "[atelier] reason: the npm registry ($(npm config get registry 2>/dev/null)) could not be reached: check the network, or npm's registry/proxy settings" >&2
    elif grep -qiE 'EACCES|EPERM' "$log"; then
      echo "[atelier] reason: no permission to write $PWD/.tools: check who owns this checkout" >&2
    elif grep -qiE 'E404|notarget|No matching version' "$log"; then
      echo "[atelier] reason: bun@$BUN_VERSION is not on the configured registry" >&2
    else
      echo "[atelier] reason: see npm's output above" >&2
    fi
    echo "[atelier] or install Bun yourself (https://bun.sh) and run this again" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
fi

if [ ! -f node_modules/.atelier-installed ] || [ package.json -nt node_modules/.atelier-installed ] || [ bun.lock -nt node_modules/.atelier-installed ]; then
  echo "[atelier] installing dependencies (bun install)" >&2
  bun install --frozen-lockfile
  touch node_modules/.atelier-installed
fi
exec "$@"
