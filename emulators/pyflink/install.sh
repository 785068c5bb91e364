#!/usr/bin/env bash
# Installs PyFlink (PyPI, pinned in requirements.txt) into a virtual environment for format-flink's bundle
# integration tests: PyFlinkIT runs a PyFlink SQL session over the bundle jar, and FlinkBundleIT runs a child JVM
# whose classpath is the Flink distribution inside the wheel (pyflink/lib) plus the bundle. Not an emulator, but
# installed the same way: emulators/install.sh runs it, and format-flink calls it before its integration tests.
# The environment lives in ${QUIVER_PYFLINK_VENV:-$HOME/.cache/quiver/pyflink-venv}, outside target/, so
# `mvn clean` does not reinstall it (~850 MB). Idempotent: does nothing while the environment matches the pins.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${QUIVER_PYFLINK_VENV:-$HOME/.cache/quiver/pyflink-venv}"

if ! command -v python3 >/dev/null 2>&1; then
  echo "emulators/pyflink: 'python3' is not installed; install Python 3.9-3.12 with venv (e.g. apt-get install -y python3 python3-venv)" >&2
  exit 1
fi

stamp="$venv/.quiver-requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && "$venv/bin/python" -c 'import pyflink' >/dev/null 2>&1; then
  echo "emulators/pyflink: apache-flink is installed in $venv"
  exit 0
fi

echo "emulators/pyflink: creating $venv and installing $(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c 'import pyflink' || {
  echo "emulators/pyflink: pip finished but 'import pyflink' fails in $venv" >&2
  exit 1
}
echo "$want" > "$stamp"
echo "emulators/pyflink: installed $(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')in $venv"
