#!/bin/sh
# Runs a command with Bun and the project's dependencies in place, installing
# what is missing: Bun from the npm registry (the only thing a fresh machine
# needs is Node.js and npm), then `bun install` from the lockfile.
set -e
BUN_VERSION=1.4.5
cd "$(dirname "$0")/.."

if ! command -v bun >/dev/null 2>&1; then
  if [ -x .tools/node_modules/.bin/bun ]; then
    :
  else
    echo "[atelier] installing Bun $BUN_VERSION from the npm registry" >&2
    npm install -g "bun@$BUN_VERSION" >/dev/null 2>&1 || {
      echo "[atelier] global install not allowed; installing Bun into .tools/" >&2
      npm install --prefix .tools --no-save --no-audit --no-fund "bun@$BUN_VERSION" >/dev/null
    }
  fi
fi
if ! command -v bun >/dev/null 2>&1; then PATH="$PWD/.tools/node_modules/.bin:$PATH"; export PATH; fi

if [ ! -d node_modules ] || [ package.json -nt node_modules/.atelier-installed ] || [ bun.lock -nt node_modules/.atelier-installed ]; then
  echo "[atelier] installing dependencies (bun install)" >&2
  bun install --frozen-lockfile
  touch node_modules/.atelier-installed
fi
exec "$@"
