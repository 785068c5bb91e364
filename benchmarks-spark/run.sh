#!/usr/bin/env bash
# Runs the Spark connector's JMH benchmarks, each beside Spark's built-in Parquet source in the same run, and
# writes benchmarks-spark/RESULTS.md and the "Spark" section of benchmarks/RESULTS.md.
#
#   benchmarks-spark/run.sh quick            # about 10 minutes on 2 cores: 1M-row scans and appends, a
#                                            # 200k-row backfill; 1 fork, 1 warm-up and 3 measured shots each
#   benchmarks-spark/run.sh full             # the issue's sizes: 10M rows; 2M rows in 200 fragments
#   benchmarks-spark/run.sh quick ScanBench  # extra arguments go to JMH (a benchmark regex, -prof jfr, ...)
#
# Generated tables are cached in benchmarks-spark/target/bench-data (delete it to rebuild them); JMH's JSON and
# the side measurements go to benchmarks-spark/target/results/<profile>/.
set -euo pipefail
profile=${1:-quick}
shift || true
case "$profile" in
  quick|full) ;;
  *) echo "usage: benchmarks-spark/run.sh [quick|full] [JMH arguments...]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

echo "== building the Spark benchmarks"
mvn -B -q -o package dependency:build-classpath -pl benchmarks-spark -am -DskipTests \
  -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime
cp="$here/target/classes:$(cat "$here/target/classpath.txt")"

out="$here/target/results/$profile"
mkdir -p "$out" "$here/target/bench-data"
rm -f "$out/jmh.json" "$out/measurements.tsv"
# Scratch copies and written tables of an earlier, interrupted run.
rm -rf "$here/target/bench-data/scratch"

# What Spark's launcher passes on Java 17 (the --add-opens list): format-spark's spark.jvm.flags, one source.
spark_flags=$(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' "$root/format-spark/pom.xml")
if [ -z "$spark_flags" ]; then
  echo "no <spark.jvm.flags> in format-spark/pom.xml" >&2
  exit 1
fi
# A bounded heap: Spark's executors run in the fork (local[2]); Quiver's Arrow buffers are off-heap.
jvm_flags="$spark_flags -Xms3g -Xmx3g -XX:+UseParallelGC"
jvm_flags+=" -Dquiver.bench.profile=$profile -Dquiver.bench.dir=$here/target/bench-data"
jvm_flags+=" -Dquiver.bench.measurements=$out/measurements.tsv"
if [ "$profile" = quick ]; then
  jmh_flags=(-f 1 -wi 1 -i 3)
else
  # One fork per benchmark; iteration counts as annotated on each class (2 warm-up, 5 measured shots).
  jmh_flags=(-f 1)
fi

echo "== running JMH ($profile profile)"
# shellcheck disable=SC2086 # the launcher needs the flags as separate words
java $spark_flags -cp "$cp" org.openjdk.jmh.Main \
  -rf json -rff "$out/jmh.json" -jvmArgsAppend "$jvm_flags" "${jmh_flags[@]}" "$@"

echo "== writing RESULTS.md"
java -cp "$cp" io.quiver.bench.spark.report.SparkReport "$out/jmh.json" "$out/measurements.tsv" \
  "$here/RESULTS.md" "$profile" "$root/benchmarks/RESULTS.md" "$here/NOTES.md"
