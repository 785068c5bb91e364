#!/usr/bin/env bash
# Installs pyarrow and the Python reader's test dependencies (PyPI, pinned in requirements.txt) into a virtual
# environment for the cross-reader integration tests (conformance-tests: PyArrowReadsQuiverIT opens compressed
# Quiver data files with Arrow C++; PythonReaderIT runs python/tests with pytest), then the repository's own
# python/ package (quiver) into it, without dependencies, from this clone. Not an emulator, but installed the same way: emulators/install.sh runs it before the integration
# tests. The environment lives in ${QUIVER_PYARROW_VENV:-$HOME/.cache/quiver/pyarrow-venv}, outside target/,
# so `mvn clean` does not reinstall it. Idempotent: does nothing while the environment matches the pins.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${QUIVER_PYARROW_VENV:-$HOME/.cache/quiver/pyarrow-venv}"

if ! command -v python3 >/dev/null 2>&1; then
  echo "emulators/pyarrow: 'python3' is not installed; install Python 3.9+ with venv (e.g. apt-get install -y python3 python3-venv)" >&2
  exit 1
fi

stamp="$venv/.quiver-requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
repo="$(cd "$here/../.." && pwd)"

# The quiver package from this clone: a plain (non-editable) install of python/ whose tree hash is stamped, so a
# new clone or changed sources reinstall it (a second or so) and an unchanged one costs nothing. The tests also
# put python/ first on PYTHONPATH, so they always run the clone's code.
install_quiver() {
  local qstamp="$venv/.quiver-package.sha256" qwant
  qwant="$(cd "$repo/python" && find quiver pyproject.toml -type f -name '*.py' -o -name pyproject.toml | LC_ALL=C sort \
    | xargs sha256sum | sha256sum | cut -d' ' -f1)"
  if [ -f "$qstamp" ] && [ "$(cat "$qstamp")" = "$qwant" ] && "$venv/bin/python" -c 'import quiver' >/dev/null 2>&1; then
    return 0
  fi
  local build
  build="$(mktemp -d)"
  cp -r "$repo/python/." "$build/"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation "$build"
  rm -rf "$build"
  echo "$qwant" > "$qstamp"
  echo "emulators/pyarrow: installed the quiver package from $repo/python into $venv"
}

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && "$venv/bin/python" -c 'import pyarrow' >/dev/null 2>&1; then
  echo "emulators/pyarrow: pyarrow $("$venv/bin/python" -c 'import pyarrow; print(pyarrow.__version__)') is installed in $venv"
  install_quiver
  exit 0
fi

echo "emulators/pyarrow: creating $venv and installing $(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c 'import pyarrow' || {
  echo "emulators/pyarrow: pip finished but 'import pyarrow' fails in $venv" >&2
  exit 1
}
echo "$want" > "$stamp"
install_quiver
echo "emulators/pyarrow: installed pyarrow $("$venv/bin/python" -c 'import pyarrow; print(pyarrow.__version__)') in $venv"
