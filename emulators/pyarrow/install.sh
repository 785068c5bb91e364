#!/usr/bin/env bash
# Installs pyarrow (PyPI, pinned in requirements.txt) into a virtual environment for the cross-reader
# integration test (conformance-tests: PyArrowReadsQuiverIT opens compressed Quiver data files with Arrow
# C++). Not an emulator, but installed the same way: emulators/install.sh runs it before the integration
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
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && "$venv/bin/python" -c 'import pyarrow' >/dev/null 2>&1; then
  echo "emulators/pyarrow: pyarrow $("$venv/bin/python" -c 'import pyarrow; print(pyarrow.__version__)') is installed in $venv"
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
echo "emulators/pyarrow: installed pyarrow $("$venv/bin/python" -c 'import pyarrow; print(pyarrow.__version__)') in $venv"
