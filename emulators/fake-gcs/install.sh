#!/usr/bin/env bash
# Installs fake-gcs-server (the GCS emulator the format-io-gcs integration tests run) into
# emulators/fake-gcs/bin/, built from source with `go install` from the Go module proxy. Idempotent: does
# nothing when bin/fake-gcs-server is already this version. Needs Go (1.22+); fails loudly without it.
set -euo pipefail

VERSION="v1.56.1"
MODULE="github.com/fsouza/fake-gcs-server"

here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/bin"
stamp="$bin/.version"
exe="$bin/fake-gcs-server"

if [[ -x "$exe" && -f "$stamp" && "$(cat "$stamp")" == "$VERSION" ]]; then
  echo "fake-gcs-server $VERSION already installed at $exe"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "ERROR: 'go' is not on the PATH; fake-gcs-server $VERSION is built with 'go install'." >&2
  echo "Install Go 1.22 or newer (https://go.dev/doc/install, or apt-get install golang-go) and rerun $0." >&2
  exit 1
fi

echo "installing $MODULE@$VERSION into $bin (go $(go env GOVERSION))"
mkdir -p "$bin"
rm -f "$stamp"
# A module-mode install outside any module: it uses the module's own go.mod and go.sum.
GOBIN="$bin" GOFLAGS=-mod=mod go install "$MODULE@$VERSION"
"$exe" -help >/dev/null 2>&1 || true
[[ -x "$exe" ]] || { echo "ERROR: go install finished but $exe is missing" >&2; exit 1; }
echo "$VERSION" > "$stamp"
echo "fake-gcs-server $VERSION installed at $exe"
