#!/usr/bin/env bash
# Import benchmark (issue 20): CSV and JSON lines -> Quiver table with `quiver import`, beside pyarrow's
# streaming readers writing an Arrow IPC file from the same input, in the same run. Measures wall time,
# MB/s of input and peak RSS (GNU time's maximum resident set size) of each process, JVM start included,
# and writes the rows into benchmarks/RESULTS.md between the import-bench markers (Report keeps them).
#
#   benchmarks/import/run.sh [megabytes]     # default 1000 (a 1 GB file of each kind)
#
# Each import (and each pyarrow read) runs RUNS times (default 3), alternating the two; the table reports
# the median time and the largest peak RSS, with every run's time beside it (one run on this machine varies
# by up to half of the median).
#
# Needs /usr/bin/time and a python3 with pyarrow: PYTHON=/path/to/venv/bin/python (default: a venv in
# $TMPDIR/quiver-bench-venv, created with pip install pyarrow on first use). Inputs go to $TMPDIR and are
# deleted at the end. QUIVER_JAR=/path/to/quiver.jar runs another build of the command line.
# QUIVER_IMPORT_ARGS="--config write.compression=none" adds arguments to quiver import (e.g. the new table's
# configuration). The imports map a class-data-sharing archive recorded first by a 1 MB import, as the
# ./quiver launcher does after its first run; QUIVER_CDS=0 runs them without.
set -euo pipefail
mb=${1:-1000}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=${TMPDIR:-/tmp}/quiver-import-bench
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

python=${PYTHON:-}
if [ -z "$python" ]; then
  venv=${TMPDIR:-/tmp}/quiver-bench-venv
  [ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q pyarrow; }
  python=$venv/bin/python
fi

jar=${QUIVER_JAR:-$root/format-cli/target/quiver.jar}
if [ ! -f "$jar" ]; then
  (cd "$root" && mvn -B -q -o -pl format-cli -am package -DskipTests)
fi
java_flags=(--add-opens=java.base/java.nio=ALL-UNNAMED -XX:+UseParallelGC -XX:MaxNewSize=96m)   # as the quiver launcher runs it
if [ "${QUIVER_CDS:-1}" != 0 ]; then
  cds=(-XX:+IgnoreUnrecognizedVMOptions -Xlog:cds=off,cds+dynamic=off)
  java "$here/GenerateData.java" jsonl "$tmp/cds.jsonl" 1
  java "${java_flags[@]}" "${cds[@]}" -XX:ArchiveClassesAtExit="$tmp/quiver.jsa" -jar "$jar" import "$tmp/cds-table" \
    "$tmp/cds.jsonl" --progress none > /dev/null 2> "$tmp/cds.err" || { cat "$tmp/cds.err" >&2; exit 1; }
  rm -rf "$tmp/cds-table" "$tmp/cds.jsonl"
  java_flags+=("${cds[@]}" -XX:SharedArchiveFile="$tmp/quiver.jsa")
fi

# time_it <label> <command...>: appends "label<TAB>seconds<TAB>peak KB" to $tmp/times.tsv
time_it() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time.txt" "$@" > "$tmp/$label.out" 2> "$tmp/$label.err" || {
    cat "$tmp/$label.err" >&2; exit 1; }
  read -r secs kb < "$tmp/time.txt"
  printf '%s\t%s\t%s\n' "$label" "$secs" "$kb" >> "$tmp/times.tsv"
  echo "   $label: $secs s, peak RSS $((kb / 1024)) MB"
}

: > "$tmp/times.tsv"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for kind in csv jsonl; do
  input=$tmp/input.$kind
  echo "== generating $mb MB of $kind"
  java "$here/GenerateData.java" "$kind" "$input" "$mb"
  sync
  bytes=$(stat -c %s "$input")
  echo "$kind	$bytes" >> "$tmp/sizes.tsv"
  cat "$input" > /dev/null   # both readers start from the page cache
  for ((r = 1; r <= runs; r++)); do
    echo "== quiver import ($kind, run $r of $runs)"
    time_it "quiver-$kind" java "${java_flags[@]}" -jar "$jar" import "$tmp/table-$kind" "$input" --progress none ${QUIVER_IMPORT_ARGS:-}
    grep -o 'imported [0-9]* rows' "$tmp/quiver-$kind.out" | head -1
    rm -rf "$tmp/table-$kind"
    echo "== pyarrow ($kind -> Arrow IPC, run $r of $runs)"
    time_it "pyarrow-$kind" "$python" "$here/pyarrow_baseline.py" "$kind" "$input" "$tmp/out-$kind.arrow"
    cat "$tmp/pyarrow-$kind.out"
    rm -f "$tmp/out-$kind.arrow"
  done
  rm -f "$input"
done

# ---------------------------------------------------------------- RESULTS.md
load=$(cut -d' ' -f1-3 /proc/loadavg)
cpus=$(nproc)
pyver=$("$python" -c 'import pyarrow; print(pyarrow.__version__)')
cdsnote=$([ "${QUIVER_CDS:-1}" != 0 ] && echo "with the launcher's class-data-sharing archive" || echo "without class-data sharing")
section=$(awk -v cdsnote="$cdsnote" -v load="$load" -v load_start="$load_start" -v cpus="$cpus" -v pyver="$pyver" -v date="$(date +%F)" '
  FILENAME ~ /sizes/ { size[$1] = $2; next }
  {
    n[$1]++; t[$1, n[$1]] = $2
    if ($3 > kb[$1]) kb[$1] = $3
  }
  END {
    # median time of each label (insertion sort of its runs), and the runs in the order they ran
    for (label in n) {
      m = n[label]; all = ""
      for (i = 1; i <= m; i++) { v[i] = t[label, i] + 0; all = all (i > 1 ? ", " : "") t[label, i] }
      for (i = 2; i <= m; i++) { x = v[i]; j = i - 1; while (j >= 1 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
      secs[label] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
      runs_of[label] = all
    }
    print "<!-- import-bench:begin (written by benchmarks/import/run.sh; Report keeps it) -->"
    print "## Import: CSV and JSON lines into a table (issue 20)"
    print ""
    printf "Generated by `benchmarks/import/run.sh` on %s: one generated file of each kind (8 columns: int64,\n", date
    print "string, float64, date, timestamp, bool, int64 with nulls, string with quotes; JSON lines add a struct and a"
    print "list), read from the page cache, each import run " n["quiver-csv"] " times alternating with the baseline: the"
    print "median time and the largest peak RSS, every run'"'"'s time in the last column. Quiver: `quiver import` of the"
    print "file into a new local table (the configuration quiver import gives a new table: ZSTD level 1 in 4 KiB frames; JVM start"
    print cdsnote ", the sampling pass and the fsynced commit included). Baseline: pyarrow " pyver "'"'"'s streaming"
    print "reader"
    print "(`pyarrow.csv.open_csv`, `pyarrow.json.open_json`) writing an Arrow IPC file, in the same run. Peak RSS is"
    printf "GNU time'"'"'s maximum resident set size. %s cores; load average (1, 5, 15 min) at the start of the run:\n", cpus
    printf "%s, at its end: %s.\n", load_start, load
    print ""
    print "| Input | Size | System | Median time | MB/s | × pyarrow | Peak RSS | Target | Runs (s) |"
    print "|---|---|---|---|---|---|---|---|---|"
    split("csv jsonl", kinds, " ")
    for (k = 1; k <= 2; k++) {
      kind = kinds[k]
      mbytes = size[kind] / 1e6
      name = kind == "csv" ? "CSV" : "JSON lines"
      q = "quiver-" kind; p = "pyarrow-" kind
      qr = mbytes / secs[q]; pr = mbytes / secs[p]
      met = (qr >= 100 && kb[q] <= 1048576) ? "met" : "not met"
      printf "| %s | %.0f MB | quiver import | %.1f s | %.1f | %.2f | %d MB | >= 100 MB/s, <= 1 GB: %s | %s |\n", name, mbytes, secs[q], qr, qr / pr, kb[q] / 1024, met, runs_of[q]
      printf "| %s | %.0f MB | pyarrow (to Arrow IPC) | %.1f s | %.1f | 1 | %d MB | — | %s |\n", name, mbytes, secs[p], pr, kb[p] / 1024, runs_of[p]
    }
    print "<!-- import-bench:end -->"
  }' "$tmp/sizes.tsv" "$tmp/times.tsv")
results=$root/benchmarks/RESULTS.md
python3 - "$results" "$section" <<'PY'
import re, sys
path, section = sys.argv[1], sys.argv[2]
text = open(path).read()
pattern = re.compile(r"<!-- import-bench:begin.*?<!-- import-bench:end -->\n?", re.S)
if pattern.search(text):
    text = pattern.sub(lambda m: section + "\n", text)
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
PY
echo "== wrote the import rows into $results"
echo "$section"
