package io.quiver.examples;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.VersionInfo;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The README's quickstart: create a table on the local filesystem, append to it from several writers
 * at once, scan it, and travel back in time. {@code QuickstartTest} runs it; {@code ./quiver demo} is the
 * command-line tour.
 */
public final class Quickstart {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              new Field("sensor", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
              new Field("reading", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

  static final int WRITERS = 4;
  static final int APPENDS_PER_WRITER = 5;
  static final int ROWS_PER_APPEND = 100;

  private Quickstart() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("quiver-quickstart");
    run(dir.resolve("readings"), System.out);
  }

  /** Runs the quickstart against a table at {@code tablePath}, narrating to {@code out}. */
  static void run(Path tablePath, PrintStream out) throws Exception {
    String uri = tablePath.toString();
    try (BufferAllocator allocator = new RootAllocator()) {
      DatasetOptions options =
          DatasetOptions.builder()
              .allocator(allocator)
              .commitOptions(CommitOptions.defaults().withMaxAttempts(1000).withTimeout(Duration.ofMinutes(2)))
              .build();

      out.println("1. Creating table " + uri + " with columns id, sensor, reading.");
      try (VectorSchemaRoot first = batch(allocator, 0, ROWS_PER_APPEND);
          Dataset table = Dataset.create(uri, SCHEMA, List.of(first), options)) {
        out.println("   version " + table.version() + ": " + table.countRows() + " rows; field ids "
            + table.schema().allFields().stream().map(f -> f.name() + "=" + f.id()).toList());
      }

      out.println("2. " + WRITERS + " writers append " + APPENDS_PER_WRITER + " batches each, all at once,"
          + " each through its own handle. No locks, no server: each commit claims the next version with an"
          + " atomic create-if-absent.");
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<Long>>> futures = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        final int writer = w;
        futures.add(pool.submit(() -> {
          List<Long> versions = new ArrayList<>();
          try (Dataset handle = Dataset.open(uri, options)) {
            go.await();
            for (int i = 0; i < APPENDS_PER_WRITER; i++) {
              long firstId = (1 + (long) writer * APPENDS_PER_WRITER + i) * ROWS_PER_APPEND;
              try (VectorSchemaRoot rows = batch(allocator, firstId, ROWS_PER_APPEND)) {
                versions.add(handle.append(List.of(rows)));
              }
            }
          }
          return versions;
        }));
      }
      go.countDown();
      for (int w = 0; w < WRITERS; w++) {
        out.println("   writer " + w + " committed versions " + futures.get(w).get());
      }
      pool.shutdown();

      try (Dataset table = Dataset.open(uri, options)) {
        out.println("3. Latest version " + table.version() + " holds " + table.countRows() + " rows in "
            + table.manifest().fragments().size() + " fragments.");
        long rows = 0;
        long distinct;
        java.util.BitSet seen = new java.util.BitSet();
        try (ArrowReader reader = table.newScan().columns("id").open()) {
          while (reader.loadNextBatch()) {
            BigIntVector ids = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
            for (int i = 0; i < ids.getValueCount(); i++) {
              seen.set((int) ids.get(i));
              rows++;
            }
          }
        }
        distinct = seen.cardinality();
        out.println("   scanning the id column read " + rows + " rows, " + distinct + " distinct: every append"
            + " landed exactly once.");

        try (Dataset v1 = table.checkout(1)) {
          out.println("4. Time travel: version 1 still holds " + v1.countRows() + " rows.");
        }
        out.println("5. History (newest first):");
        for (VersionInfo v : table.versions().subList(0, 3)) {
          out.println("   version " + v.version() + "  " + v.operation() + "  read at " + v.readVersion()
              + "  rows " + v.rows());
        }
        out.println("   ... " + table.versions().size() + " versions in all.");
      }
    }
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, long firstId, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector sensor = (VarCharVector) root.getVector("sensor");
    Float8Vector reading = (Float8Vector) root.getVector("reading");
    for (int i = 0; i < rows; i++) {
      long v = firstId + i;
      id.setSafe(i, v);
      sensor.setSafe(i, ("sensor-" + (v % 8)).getBytes(StandardCharsets.UTF_8));
      reading.setSafe(i, 20.0 + (v % 50) / 10.0);
    }
    root.setRowCount(rows);
    return root;
  }
}
