#!/usr/bin/env bash
# Installs every storage emulator the integration tests need, each by its own emulators/<name>/install.sh
# (idempotent: a script does nothing when its emulator is already in place). Called by Maven
# (conformance-tests, pre-integration-test) so that `mvn -B verify` alone is enough, and safe to run by hand.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shopt -s nullglob
for script in "$here"/*/install.sh; do
  echo "emulators: $(basename "$(dirname "$script")")"
  bash "$script"
done
