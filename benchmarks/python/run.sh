#!/usr/bin/env bash
# Python scan benchmark: quiver-py against the Java reader (JavaScan), pyarrow reading the same Arrow files and
# pylance, on benchmark 1's table (BenchData.scanSchema), in one run. Usage:
# benchmarks/python/run.sh [ROWS, default 10000000] [OUT_DIR]; REPEAT (default 5) timed runs per reader and scan;
# BLOB_ROWS (default 10000000, 0 to skip) rows of the table for Lance's published take shape (MakeOpsData, JavaOps).
# Builds the benchmarks module and what it needs (mvn package, no install) and uses a venv with
# benchmarks/python/requirements.txt (BENCH_VENV, default ~/.cache/quiver/bench-python-venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
rows="${1:-10000000}"
out="${2:-$repo/benchmarks/target/python-bench-$rows}"
venv="${BENCH_VENV:-$HOME/.cache/quiver/bench-python-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
fi
cd "$repo"
repeat="${REPEAT:-5}"
if [ ! -f "$out.cp" ]; then
  # package, so that the reactor resolves this clone's modules (nothing is installed into ~/.m2)
  mvn -o -q package dependency:build-classpath -pl benchmarks -am -DskipTests -Dspotbugs.skip -Dmaven.javadoc.skip \
    -DincludeScope=runtime -Dmdep.outputFile="$out.cp" >/dev/null
fi
cp="benchmarks/target/classes:format-core/target/classes:format-io-local/target/classes:$(cat "$out.cp")"
if [ ! -d "$out/quiver/_versions" ]; then
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" "$here/MakeTables.java" "$out" "$rows"
fi
if [ ! -d "$out/lance" ]; then
  PYTHONPATH="$repo/python" "$venv/bin/python" "$here/write_lance.py" "$out/quiver" "$out/lance"
fi
if ! java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" "$here/JavaScan.java" "$out/quiver" "$repeat" 5 \
    >"$out/java-scan.txt" 2>"$out/java-scan.err"; then
  cat "$out/java-scan.txt" "$out/java-scan.err" >&2
  exit 1
fi
cat "$out/java-scan.txt"
# Operations (issue 44's pylance baseline): take, filtered scan, merge-insert on the same table, and Lance's
# published take shape on a table of BLOB_ROWS rows of a ~1 KiB string (default 10,000,000; 0 skips it).
blob_rows="${BLOB_ROWS:-10000000}"
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" "$here/MakeOpsData.java" "$out/ops" "$rows" "$blob_rows"
if [ "$blob_rows" != 0 ] && [ ! -d "$out/ops/blob-lance" ]; then
  PYTHONPATH="$repo/python" "$venv/bin/python" "$here/write_lance.py" "$out/ops/blob-quiver" "$out/ops/blob-lance"
fi
if ! java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" "$here/JavaOps.java" "$out/quiver" "$out/ops" \
    "$repeat" 3 >"$out/java-ops.txt" 2>"$out/java-ops.err"; then
  cat "$out/java-ops.txt" "$out/java-ops.err" >&2
  exit 1
fi
cat "$out/java-ops.txt"
PYTHONPATH="$repo/python" "$venv/bin/python" "$here/bench.py" "$out/quiver" --lance "$out/lance" \
  --java "$out/java-scan.txt" --repeat "$repeat" --ops "$out/ops" --java-ops "$out/java-ops.txt"
