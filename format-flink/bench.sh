#!/usr/bin/env bash
# The Flink sink's benchmark: throughput at parallelism 2 with a checkpoint every second, and the commit cost
# per checkpoint as the table grows (format-flink/BENCHMARKS.md). Usage: format-flink/bench.sh [rows] [checkpoints]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -o -q -B test-compile dependency:build-classpath -pl format-flink -am \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test
CP="format-flink/target/test-classes:format-flink/target/classes:$(cat format-flink/target/bench-classpath.txt)"
FLAGS="--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED"
exec java $FLAGS -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$CP" io.quiver.flink.sink.SinkBenchmark "$@"
