package io.quiver.examples;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The README's other snippets as one program: changing a table (deletes, updates, column changes under
 * {@code columns()}, compaction, restore, tags, cleanup, validation), a staged column backfill, and an
 * exactly-once distributed append under {@code distributed()}. {@code ChangingATableTest} runs it.
 */
public final class ChangingATable {
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private ChangingATable() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("quiver-changes");
    run(dir.resolve("people"), System.out);
  }

  /** Creates a table at {@code tablePath} (versions 1 to 3), changes it and narrates to {@code out}. */
  static void run(Path tablePath, PrintStream out) throws Exception {
    String uri = tablePath.toString();
    try (BufferAllocator allocator = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).build();
      try (VectorSchemaRoot first = batch(allocator, 0, 100);
          Dataset table = Dataset.create(uri, SCHEMA, List.of(first), options)) {
        for (long from = 100; from < 300; from += 100) {
          try (VectorSchemaRoot more = batch(allocator, from, 100)) {
            table.append(List.of(more));
          }
        }
        out.println("created version " + table.version() + " with " + table.countRows() + " rows");
        change(table);
        out.println("changed: version " + table.version() + ", " + table.countRows() + " rows, columns "
            + table.schema().fields().stream().map(f -> f.name()).toList());
        backfill(table, allocator, out);
        distributedAppend(uri, options, table, allocator, out);
      }
    }
  }

  /** The README's "Changing a table". */
  static void change(Dataset table) {
    Field doubledField = new Field("doubled", FieldType.nullable(new ArrowType.Int(64, true)), null);
    table.delete(Predicate.and(Predicate.ge("id", 100L), Predicate.isNull("name")));   // deletion files
    table.update(Predicate.eq("id", 7L), Map.of("name", "seven"));                      // overlays: only changed cells
    table.columns().add(List.of(new Field("score", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    table.columns().add(List.of(doubledField), List.of("id"), (input, alloc) -> computeDoubled(input, alloc));
    table.columns().rename("name", "label");                                            // metadata only
    table.columns().drop("label");
    table.compact(CompactionOptions.defaults());                                        // fold deletions and overlays
    table.restore(3);                                                                   // version 3's content as the latest
    table.tags().create("before-backfill", table.version());
    table.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());      // never latest, tagged or young files
    table.validate().orThrow();
  }

  /** The README's "Distributed column backfill", with the workers in this process. */
  static void backfill(Dataset table, BufferAllocator allocator, PrintStream out) throws IOException {
    long version = table.version();
    Field lengthField = new Field("name_length", FieldType.nullable(new ArrowType.Int(64, true)), null);
    List<byte[]> received = new ArrayList<>();
    try (Dataset ds = table.checkout(version)) {
      ColumnSchema schema = ds.columns().newSchema(List.of(lengthField), List.of(), List.of("name"));
      for (Fragment fragment : ds.manifest().fragments()) {
        try (ArrowReader batches = nameLengths(ds, fragment, schema, allocator)) {
          received.add(ds.columns().writeFragment(fragment.id(), batches, schema).encode());
        }
      }
    }
    List<StagedColumnWrite> staged = received.stream().map(StagedColumnWrite::decode).toList();
    long committed = table.columns().commit(staged);
    out.println("backfilled name_length in " + staged.size() + " fragments: version " + committed);
  }

  /** The README's "Exactly-once distributed writes": a worker's result committed under a key, twice. */
  static void distributedAppend(String uri, DatasetOptions options, Dataset table, BufferAllocator allocator,
      PrintStream out) {
    WriteResult result;
    try (DistributedWriter writer = DistributedWriter.open(uri, options, table.version());
        VectorSchemaRoot rows = batch(allocator, 1000, 10, table.schema().toArrow())) {
      result = writer.write(List.of(rows));
    }
    List<WriteResult> results = List.of(WriteResult.decode(result.encode()));
    CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("job-1/attempt-1");
    long version = table.distributed().commit(results, WriteMode.APPEND, keyed);
    long again = table.distributed().commit(results, WriteMode.APPEND, keyed);   // a retry: publishes nothing
    CommitLookup found = table.distributed().findCommit("job-1/attempt-1", result.readVersion());
    out.println("distributed append: version " + version + ", retry " + again + ", lookup " + found.status()
        + " at " + found.version());
  }

  // ---------------------------------------------------------------- helpers

  /** {@code doubled = id * 2} for one chunk of a fragment. */
  static VectorSchemaRoot computeDoubled(VectorSchemaRoot input, BufferAllocator alloc) {
    BigIntVector ids = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(
        new Schema(List.of(new Field("doubled", FieldType.nullable(new ArrowType.Int(64, true)), null))), alloc);
    BigIntVector doubled = (BigIntVector) out.getVector(0);
    doubled.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      doubled.set(i, ids.get(i) * 2);
    }
    doubled.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  }

  /** A worker's computation: the length of {@code name} for every physical row of the fragment. */
  private static ArrowReader nameLengths(Dataset ds, Fragment fragment, ColumnSchema schema, BufferAllocator allocator)
      throws IOException {
    List<Long> lengths = new ArrayList<>();
    // Physical rows in offset order (deleted ones included): this table has no deletions after the restore.
    try (ArrowReader names = ds.newScan().columns("name").open()) {
      long offset = 0;
      while (names.loadNextBatch()) {
        VarCharVector name = (VarCharVector) names.getVectorSchemaRoot().getVector("name");
        for (int i = 0; i < name.getValueCount(); i++, offset++) {
          if (offset >= firstRow(ds, fragment) && offset < firstRow(ds, fragment) + fragment.physicalRows()) {
            lengths.add(name.isNull(i) ? null : (long) name.get(i).length);
          }
        }
      }
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema.arrowSchema(), allocator)) {
      BigIntVector v = (BigIntVector) root.getVector(0);
      v.allocateNew(lengths.size());
      for (int i = 0; i < lengths.size(); i++) {
        if (lengths.get(i) == null) {
          v.setNull(i);
        } else {
          v.set(i, lengths.get(i));
        }
      }
      v.setValueCount(lengths.size());
      root.setRowCount(lengths.size());
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  /** The scan position of a fragment's first row (fragments are scanned in manifest order). */
  private static long firstRow(Dataset ds, Fragment fragment) {
    long first = 0;
    for (Fragment f : ds.manifest().fragments()) {
      if (f.id() == fragment.id()) {
        return first;
      }
      first += f.physicalRows();
    }
    throw new IllegalArgumentException("no fragment " + fragment.id());
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, long firstId, int rows) {
    return batch(allocator, firstId, rows, SCHEMA);
  }

  /** Rows {@code firstId ..}: every 10th name is null; columns other than id and name are null. */
  static VectorSchemaRoot batch(BufferAllocator allocator, long firstId, int rows, Schema schema) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int i = 0; i < rows; i++) {
      long v = firstId + i;
      id.setSafe(i, v);
      if (v % 10 == 3) {
        name.setNull(i);
      } else {
        name.setSafe(i, ("name-" + v).getBytes(StandardCharsets.UTF_8));
      }
    }
    root.getFieldVectors().forEach(vector -> vector.setValueCount(rows));
    root.setRowCount(rows);
    return root;
  }
}
