package io.quiver.flink.sink;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SchemaPolicy;
import io.quiver.dataset.WriteResult;
import io.quiver.flink.types.FlinkTypes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;

/**
 * The sink's benchmark (run by {@code format-flink/bench.sh}; figures in format-flink/BENCHMARKS.md): (1)
 * throughput of a parallelism-2 job with a checkpoint every second, RowData rows {@code (id BIGINT NOT NULL,
 * tag STRING)} from a generator into the sink on the local store, against the same job into a discarding
 * sink; (2) the commit cost per checkpoint as the table grows: the committer alone, committing checkpoints
 * of two subtasks' results (1,000 rows each) one after another, with the commit time and the manifest's size
 * at checkpoints 10, 100 and 500.
 */
public final class SinkBenchmark {
  private SinkBenchmark() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 3_000_000;
    int checkpoints = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    Path dir = Files.createTempDirectory("quiver-flink-bench");
    System.out.printf("machine: %d cores, load %s%n", Runtime.getRuntime().availableProcessors(), load());
    throughput(dir, rows);
    commitCost(dir, checkpoints);
    System.out.printf("load at the end: %s%n", load());
  }

  static String load() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }

  static void throughput(Path dir, long rows) throws Exception {
    for (int run = 0; run < 2; run++) {
      double discard = job(null, rows);
      String uri = dir.resolve("throughput-" + run).toUri().toString();
      SinkFixtures.createTable(uri, Map.of());
      double sink = job(uri, rows);
      long versions;
      try (Dataset ds = Dataset.open(uri)) {
        versions = ds.latestVersion() - 1;
        if (ds.countRows() != rows) {
          throw new IllegalStateException("the table holds " + ds.countRows() + " rows, expected " + rows);
        }
      }
      System.out.printf("run %d: %,d rows, parallelism 2, checkpoint 1 s: sink %,.0f rows/s (%d commits);"
          + " discarding sink %,.0f rows/s%n", run, rows, sink, versions, discard);
    }
  }

  /** Rows per second of a job writing {@code rows} generated rows into the sink at {@code uri} (or discarding them). */
  static double job(String uri, long rows) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(1000);
    TypeInformation<RowData> type = FlinkTypes.typeInfo(SinkFixtures.ROW_TYPE);
    DataStream<RowData> stream = env.fromSource(new DataGeneratorSource<>(SinkFixtures.rowData(), rows, type),
        WatermarkStrategy.noWatermarks(), "rows");
    if (uri == null) {
      stream.sinkTo(new DiscardingSink<>());
    } else {
      stream.sinkTo(QuiverSink.forRowData(uri, SinkFixtures.ROW_TYPE).build()).uid("quiver-sink");
    }
    long start = System.nanoTime();
    env.execute(uri == null ? "discard" : "quiver");
    return rows / ((System.nanoTime() - start) / 1e9);
  }

  static void commitCost(Path dir, int checkpoints) throws Exception {
    String uri = dir.resolve("commits").toUri().toString();
    SinkFixtures.createTable(uri, Map.of());
    DatasetOptions options = DatasetOptions.defaults();
    List<Long> nanos = new ArrayList<>();
    try (QuiverCommitter committer = new QuiverCommitter(uri, options, SchemaPolicy.ALLOW_ADDED_NULLABLE_FIELDS)) {
      for (int ckpt = 1; ckpt <= checkpoints; ckpt++) {
        List<WriteResult> results = List.of(written(uri, ckpt * 2000L), written(uri, ckpt * 2000L + 1000));
        CommitRequest<QuiverCommittable> request =
            new QuiverCommitterTest.Request(new QuiverCommittable("bench-job", "sink", ckpt, results));
        long start = System.nanoTime();
        committer.commit(List.of(request));
        nanos.add(System.nanoTime() - start);
        if (ckpt == 10 || ckpt == 100 || ckpt == 500 || ckpt == checkpoints) {
          List<Long> window = nanos.subList(Math.max(0, ckpt - 5), ckpt);
          double ms = window.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
          System.out.printf("checkpoint %d: commit %.1f ms (mean of checkpoints %d-%d), manifest %,d bytes, %d fragments%n",
              ckpt, ms, Math.max(1, ckpt - 4), ckpt, manifestBytes(dir.resolve("commits")), 2 * ckpt);
        }
      }
    }
  }

  private static WriteResult written(String uri, long from) throws IOException {
    try (RootAllocator allocator = new RootAllocator();
        DistributedWriter w = DistributedWriter.open(uri, DatasetOptions.builder().allocator(allocator).build());
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(SinkFixtures.rows(from, 1000)),
            allocator)) {
      r.loadNextBatch();
      return w.write(List.of(r.getVectorSchemaRoot()));
    }
  }

  /** The size of the newest version's manifest (the smallest name under _versions/, whose names count down). */
  private static long manifestBytes(Path table) throws IOException {
    try (Stream<Path> files = Files.list(table.resolve("_versions"))) {
      Path newest = files.filter(p -> p.toString().endsWith(".manifest")).sorted().findFirst().orElseThrow();
      return Files.size(newest);
    }
  }
}
