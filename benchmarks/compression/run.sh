#!/usr/bin/env bash
# Body compression benchmarks (issue 17 item 3): CompressionBench in one JMH run — table size on disk, full
# scan, projected scan (time and bytes fetched) and take, Quiver with ZSTD 3 / ZSTD 1 / no compression side by
# side with Lance and Arrow's own IPC reader on the same files — and writes its rows into benchmarks/RESULTS.md
# between the compression markers (benchmarks/run.sh's Report keeps them).
#
#   benchmarks/compression/run.sh quick     # 500k rows, 1 fork, 1 × 2 s warm-up, 3 × 2 s measurements
#   benchmarks/compression/run.sh full      # 10M rows, the iteration counts annotated on CompressionBench
#
# Tables are cached in benchmarks/target/bench-data like the other benchmarks' (the first run builds them).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_setup "benchmarks/compression/run.sh [quick|full] [JMH arguments...]" "$@"
shift || true
bench_build

out="$here/target/results/compression-$profile"
mkdir -p "$out" "$here/target/bench-data"
rm -f "$out/jmh.json" "$out/measurements.tsv"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

jvm_flags="-Xms4g -Xmx4g -XX:+UseParallelGC"
jvm_flags+=" -Dquiver.bench.profile=$profile -Dquiver.bench.dir=$here/target/bench-data"
jvm_flags+=" -Dquiver.bench.measurements=$out/measurements.tsv"
if [ "$profile" = quick ]; then
  jmh_flags=(-f 1 -wi 1 -w 2s -i 3 -r 2s)
else
  jmh_flags=(-f 1)
fi

echo "== running JMH: CompressionBench ($profile profile)"
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main CompressionBench \
  -rf json -rff "$out/jmh.json" -jvmArgsAppend "$jvm_flags" "${jmh_flags[@]}" "$@"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== writing the compression section of RESULTS.md"
java -cp "$cp" io.quiver.bench.report.CompressionReport "$out/jmh.json" "$out/measurements.tsv" \
  "$here/RESULTS.md" "$profile" "$load_start" "$load_end" "$here/compression/NOTES.md"
