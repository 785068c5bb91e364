#!/usr/bin/env bash
# Runs the Flink connector's JMH benchmarks (Flink SQL on a local MiniCluster, parallelism 2):
#   F1 FlinkInsertBench           INSERT of 2M rows into Quiver, Flink's filesystem/Parquet sink, blackhole
#   F2 FlinkUpsertBench           one upsert checkpoint (1% of a 10M-row primary-key table), one row delta each
#   F3 FlinkReadAfterUpsertBench  full scan after 5 upsert checkpoints vs the append-only table
#
#   benchmarks-flink/run.sh                           # every benchmark at the documented sizes (~10 minutes)
#   benchmarks-flink/run.sh FlinkInsertBench          # extra arguments go to JMH (a benchmark regex, -prof ...)
#   QUIVER_BENCH_FLAGS="-Dquiver.bench.upsertRows=1000000" benchmarks-flink/run.sh   # smaller tables
#
# Sizes: -Dquiver.bench.insertRows (2,000,000), -Dquiver.bench.upsertRows (10,000,000),
# -Dquiver.bench.upsertRounds (5). Tables are written under benchmarks-flink/target/bench-data (rebuilt every
# run); JMH's JSON and its log go to benchmarks-flink/target/results/. Forks, iterations and the JVM flags
# Flink and Arrow need (--add-opens) are in each class's annotations. The figures are copied by hand into the
# "Flink" section of benchmarks/RESULTS.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

echo "== building the Flink benchmarks"
mvn -B -q -o package dependency:build-classpath -pl benchmarks-flink -am -DskipTests \
  -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime
cp="$here/target/classes:$(cat "$here/target/classpath.txt")"

out="$here/target/results"
mkdir -p "$out" "$here/target/bench-data"
flags="-Dquiver.bench.dir=$here/target/bench-data ${QUIVER_BENCH_FLAGS:-}"

echo "== running JMH"
java -cp "$cp" org.openjdk.jmh.Main -rf json -rff "$out/jmh.json" -jvmArgsAppend "$flags" "$@" \
  2>&1 | tee "$out/jmh.log"
