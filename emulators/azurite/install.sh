#!/usr/bin/env bash
# Installs Azurite, the Azure Storage emulator the Azure adapter's integration tests run against, into
# emulators/azurite/node_modules from the pinned package.json + package-lock.json (`npm ci`).
# Idempotent: does nothing while node_modules matches the lock file. Azurite 3.37.0 declares Node >= 22
# but runs the blob service fine on Node 20 (npm prints EBADENGINE warnings).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "emulators/azurite: '$tool' is not installed; install Node.js 20+ with npm (e.g. apt-get install -y nodejs npm)" >&2
    exit 1
  fi
done

stamp="node_modules/.quiver-lock.sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -x node_modules/.bin/azurite-blob ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "emulators/azurite: azurite $(node -p 'require("./node_modules/azurite/package.json").version') is installed"
  exit 0
fi

echo "emulators/azurite: installing azurite with npm ci"
# No install scripts: azurite needs none, and none of its dependencies should run code at install time.
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
if [ ! -x node_modules/.bin/azurite-blob ]; then
  echo "emulators/azurite: npm ci finished but node_modules/.bin/azurite-blob is missing" >&2
  exit 1
fi
echo "$want" > "$stamp"
echo "emulators/azurite: installed azurite $(node -p 'require("./node_modules/azurite/package.json").version')"
