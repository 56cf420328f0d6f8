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
  echo "[atelier] installing Bun $BUN_VERSION from the npm registry" >&2
  if ! npm install -g --no-audit --no-fund "bun@$BUN_VERSION" >/dev/null 2>&1 || ! find_bun; then
    echo "[atelier] no global install here; installing Bun into .tools/" >&2
    npm install --prefix .tools --no-save --no-audit --no-fund "bun@$BUN_VERSION" >/dev/null
    find_bun || { echo "[atelier] could not install Bun from npm" >&2; exit 1; }
  fi
fi

if [ ! -f node_modules/.atelier-installed ] || [ package.json -nt node_modules/.atelier-installed ] || [ bun.lock -nt node_modules/.atelier-installed ]; then
  echo "[atelier] installing dependencies (bun install)" >&2
  bun install --frozen-lockfile
  touch node_modules/.atelier-installed
fi
exec "$@"
