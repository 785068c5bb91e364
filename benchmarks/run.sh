#!/usr/bin/env bash
# Runs Quiver's JMH benchmarks side by side with their baselines (Lance's Java SDK, Arrow's IPC reader)
# and writes benchmarks/RESULTS.md.
#
#   benchmarks/run.sh quick            # under 10 minutes on 2 cores: small tables, 1 fork, short iterations
#   benchmarks/run.sh full             # the real run (its RESULTS.md is the committed one)
#   benchmarks/run.sh quick FullScan   # extra arguments go to JMH (a benchmark regex, -p, -prof jfr, ...)
#
# Every JMH benchmark in the module runs (no list to keep), IndexBench (issue 42: scalar indices beside Lance's
# BTree/Bitmap) included: 1M rows in quick, 10M in full (-Dquiver.bench.indexRows=N in jvm_flags for another size;
# about 17 minutes at 10M on 2 cores, its tables generated once). Report gives it rows as benchmark 13 and keeps
# RESULTS.md's hand-written index-bench section (setup, targets, why).
# TableSizeBench.openCold* drop the OS page cache before each open (/proc/sys/vm/drop_caches: Linux, root);
# elsewhere they fail with a message saying so and JMH goes on with the rest.
# Generated tables are cached in benchmarks/target/bench-data (delete it to rebuild them); JMH's JSON and
# the side measurements go to benchmarks/target/results/<profile>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup "benchmarks/run.sh [quick|full] [JMH arguments...]" "$@"
shift || true
bench_build

out="$here/target/results/$profile"
mkdir -p "$out" "$here/target/bench-data"
rm -f "$out/jmh.json" "$out/measurements.tsv"
# Scratch copies of tables from an earlier, interrupted run.
rm -rf "$here/target/bench-data/scratch"

# The forks inherit the launcher's --add-opens (JMH passes the host JVM's flags on).
jvm_flags="-Xms4g -Xmx4g -XX:+UseParallelGC"
jvm_flags+=" -Dquiver.bench.profile=$profile -Dquiver.bench.dir=$here/target/bench-data"
jvm_flags+=" -Dquiver.bench.measurements=$out/measurements.tsv"
if [ "$profile" = quick ]; then
  # One fork, one short warm-up, three short measurements; table-size stops at 10k fragments.
  jmh_flags=(-f 1 -wi 1 -w 1s -i 3 -r 1s -p fragments=1000,10000)
else
  # One fork per benchmark (2 cores, and the whole run must fit an afternoon); the iteration counts and
  # times are the ones annotated on each benchmark class.
  jmh_flags=(-f 1)
fi

echo "== running JMH ($profile profile)"
if [ "$profile" = full ] && [ $# -eq 0 ]; then
  # Benchmark 7 at 1M fragments for Quiver only (Lance stops at 100k: TableSizeBench's Javadoc), in a second
  # JMH run whose results are merged into the first's.
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main \
    -rf json -rff "$out/jmh.json" -jvmArgsAppend "$jvm_flags" "${jmh_flags[@]}" -p fragments=1000,10000,100000
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main \
    -rf json -rff "$out/jmh-1m.json" -jvmArgsAppend "$jvm_flags" "${jmh_flags[@]}" -p fragments=1000000 \
    'TableSizeBench\.(openQuiver|openWarmQuiver|openColdQuiver|appendQuiver|appendQuiverNoSync)$'
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); a+=json.load(open(sys.argv[2])); json.dump(a, open(sys.argv[1], "w"), indent=1)' \
    "$out/jmh.json" "$out/jmh-1m.json"
else
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main \
    -rf json -rff "$out/jmh.json" -jvmArgsAppend "$jvm_flags" "${jmh_flags[@]}" "$@"
fi

echo "== writing RESULTS.md"
java -cp "$cp" io.quiver.bench.report.Report "$out/jmh.json" "$out/measurements.tsv" \
  "$here/RESULTS.md" "$profile" "$here/ANALYSIS.md"
