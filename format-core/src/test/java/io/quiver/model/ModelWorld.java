package io.quiver.model;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.dataset.ValidationReport;
import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The system under test and its reference model, side by side, for model-based stateful properties.
 *
 * <p>One table (at a URI of any store) and {@link #HANDLES} dataset handles on it, each with its own view:
 * a handle stays at the version it last committed or checked out until it refreshes, so its writes are
 * often stale. The model keeps one {@link ModelState} per committed version. Every operation is computed
 * by the model against the state of the version the handle built on, and a successful commit is applied
 * to the latest model state (a stale commit that Quiver accepted was rebased onto the latest version).
 * A failed operation must raise a typed conflict or validation error and publish nothing.
 *
 * <p>The table: {@code id} (int64, unique, never null) and {@code a} (int32), plus int32 columns that
 * actions add ({@code c1}, {@code c2}, ...; names are never reused, so a name identifies one field). A
 * cell's value is a function of its row id and column (and, for rewrites, a salt), so the model never
 * needs Quiver's data to know what a cell should hold.
 */
public final class ModelWorld implements AutoCloseable {
  public static final int HANDLES = 3;
  private static final ArrowType INT32 = new ArrowType.Int(32, true);
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("a", FieldType.nullable(INT32), null)));
  private static final int INITIAL_ROWS = 8;
  /** Earlier versions scanned after every step, besides the latest and the one before it. */
  private static final int SAMPLED_VERSIONS = 1;

  private final RootAllocator allocator = new RootAllocator();
  private final Dataset[] roots = new Dataset[HANDLES];
  private final Dataset[] views = new Dataset[HANDLES];
  private final TreeMap<Long, ModelState> states = new TreeMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> outcomes = new ArrayList<>();
  private final Random sampler = new Random(8);
  private long nextId;
  private int nextColumn = 1;
  private int nextSalt = 1;

  /**
   * Creates the table at {@code uri} (where none exists) with {@value #INITIAL_ROWS} rows and opens the
   * handles. {@code options} builds the dataset options around the world's leak-checking allocator.
   */
  public ModelWorld(String uri, Function<BufferAllocator, DatasetOptions> options) {
    DatasetOptions opts = options.apply(allocator);
    try {
      Map<Long, Map<String, Object>> rows = newRows(INITIAL_ROWS, List.of("id", "a"));
      try (VectorSchemaRoot batch = batch(SCHEMA, rows)) {
        roots[0] = Dataset.create(uri, SCHEMA, List.of(batch), opts);
      }
      for (int h = 1; h < HANDLES; h++) {
        roots[h] = Dataset.open(uri, opts);
      }
      System.arraycopy(roots, 0, views, 0, HANDLES);
      states.put(roots[0].version(), new ModelState(List.of("id", "a"), new TreeMap<>(rows)));
      history.add("create ids 0.." + (INITIAL_ROWS - 1) + " -> v" + roots[0].version());
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  // ---------------------------------------------------------------- actions

  /** Appends {@code n} new rows through handle {@code h}, with the handle's schema. */
  void append(int h, int n) {
    attempt(h, "append " + n + " rows", (ds, base) -> {
      List<String> cols = names(ds);
      Map<Long, Map<String, Object>> rows = newRows(n, cols);
      try (VectorSchemaRoot batch = batch(ds.schema().toArrow(), rows)) {
        ds.append(List.of(batch));
      }
      note("ids " + rows.keySet());
      return latest -> {
        Map<Long, Map<String, Object>> seen = new LinkedHashMap<>();
        rows.forEach((id, row) -> {
          Map<String, Object> r = new HashMap<>();
          latest.columns().forEach(c -> r.put(c, row.get(c)));
          seen.put(id, r);
        });
        return latest.withRows(seen);
      };
    });
  }

  /** Deletes, through handle {@code h}, the rows with {@code lo <= id < lo + len}. */
  void deleteIds(int h, int lo, int len) {
    attempt(h, "delete " + lo + " <= id < " + (lo + len), (ds, base) -> {
      ds.delete(Predicate.and(Predicate.ge("id", (long) lo), Predicate.lt("id", (long) (lo + len))));
      List<Long> matched = base.rows().keySet().stream().filter(id -> id >= lo && id < lo + len).toList();
      return latest -> latest.without(matched);
    });
  }

  /** Deletes, through handle {@code h}, the rows whose {@code k}-th non-id column is below {@code limit}. */
  void deleteBelow(int h, int k, int limit) {
    attempt(h, "delete where column #" + k + " < " + limit, (ds, base) -> {
      String col = column(ds, k);
      note(col + " < " + limit);
      ds.delete(Predicate.lt(col, limit));
      List<Long> matched = base.rows().entrySet().stream()
          .filter(e -> e.getValue().get(col) != null && (Integer) e.getValue().get(col) < limit)
          .map(Map.Entry::getKey).toList();
      return latest -> latest.without(matched);
    });
  }

  /** Sets, through handle {@code h}, the {@code k}-th non-id column to {@code value} where lo <= id < lo+len. */
  void update(int h, int lo, int len, int k, int value) {
    attempt(h, "update column #" + k + " = " + value + " where " + lo + " <= id < " + (lo + len), (ds, base) -> {
      String col = column(ds, k);
      note("column " + col);
      ds.update(Predicate.and(Predicate.ge("id", (long) lo), Predicate.lt("id", (long) (lo + len))),
          Map.of(col, value));
      Map<Long, Object> set = new HashMap<>();
      base.rows().keySet().stream().filter(id -> id >= lo && id < lo + len).forEach(id -> set.put(id, value));
      return latest -> latest.withValues(col, set);
    });
  }

  /** Adds a new nullable column that reads as null everywhere. */
  void addNullColumn(int h) {
    String name = "c" + nextColumn++;
    attempt(h, "add null column " + name, (ds, base) -> {
      ds.addColumns(List.of(intField(name)));
      return latest -> latest.withColumn(name, Map.of());
    });
  }

  /** Adds a new column computed from {@code id} in every fragment of the handle's version. */
  void addComputedColumn(int h) {
    String name = "c" + nextColumn++;
    attempt(h, "add computed column " + name, (ds, base) -> {
      ds.addColumns(List.of(intField(name)), List.of("id"), (input, alloc) -> computed(input, alloc, name, 0));
      return latest -> latest.withColumn(name, valuesOf(base, name, 0));
    });
  }

  /** Drops the {@code k}-th non-id column of the handle's schema. */
  void drop(int h, int k) {
    attempt(h, "drop column #" + k, (ds, base) -> {
      String col = column(ds, k);
      note(col);
      ds.dropColumns(col);
      return latest -> latest.has(col) ? latest.withoutColumn(col) : latest;
    });
  }

  /** Stages a new column for every fragment of the handle's version, then commits the staged writes. */
  void stagedNewColumn(int h) {
    String name = "c" + nextColumn++;
    int salt = nextSalt++;
    attempt(h, "staged write of new column " + name, (ds, base) -> {
      ColumnSchema schema = ds.newColumnSchema(List.of(intField(name)));
      stageAndCommit(ds, schema, name, salt);
      return latest -> latest.withColumn(name, valuesOf(base, name, salt));
    });
  }

  /** Stages new values of the {@code k}-th non-id column for every fragment, then commits them. */
  void stagedRewrite(int h, int k) {
    int salt = nextSalt++;
    attempt(h, "staged rewrite of column #" + k, (ds, base) -> {
      String col = column(ds, k);
      note(col + " salt " + salt);
      ColumnSchema schema = ds.newColumnSchema(List.of(), List.of(col));
      stageAndCommit(ds, schema, col, salt);
      return latest -> latest.withValues(col, valuesOf(base, col, salt));
    });
  }

  /** Replaces the {@code k}-th non-id column with values computed from {@code id} (replaceColumns). */
  void replace(int h, int k) {
    int salt = nextSalt++;
    attempt(h, "replace column #" + k, (ds, base) -> {
      String col = column(ds, k);
      note(col + " salt " + salt);
      ds.replaceColumns(List.of(col), List.of("id"), (input, alloc) -> computed(input, alloc, col, salt));
      return latest -> latest.withValues(col, valuesOf(base, col, salt));
    });
  }

  void compact(int h) {
    attempt(h, "compact", (ds, base) -> {
      ds.compact();
      return latest -> latest;
    });
  }

  /** Restores the version at position {@code pick} (modulo) of the committed versions. */
  void restore(int h, int pick) {
    List<Long> versions = new ArrayList<>(states.keySet());
    long target = versions.get(Math.floorMod(pick, versions.size()));
    attempt(h, "restore v" + target, (ds, base) -> {
      ds.restore(target);
      ModelState old = states.get(target);
      return latest -> old;
    });
  }

  /** Moves handle {@code h} to the version at position {@code pick} (modulo) of the committed versions. */
  void checkout(int h, int pick) {
    List<Long> versions = new ArrayList<>(states.keySet());
    long target = versions.get(Math.floorMod(pick, versions.size()));
    replaceView(h, roots[h].checkout(target));
    history.add("h" + h + " checkout v" + target);
  }

  /** Moves handle {@code h} to the latest version. */
  void refresh(int h) {
    replaceView(h, roots[h].checkoutLatest());
    history.add("h" + h + " refresh -> v" + views[h].version());
  }

  // ---------------------------------------------------------------- the protocol of one write

  private String pendingNote;

  private void note(String text) {
    pendingNote = pendingNote == null ? text : pendingNote + ", " + text;
  }

  /**
   * Runs {@code op} on handle {@code h}. {@code op} performs the Quiver call and returns the model's change,
   * computed from the state of the handle's version, to apply to the latest state if Quiver committed.
   */
  private void attempt(int h, String what, BiFunction<Dataset, ModelState, UnaryOperator<ModelState>> op) {
    Dataset ds = views[h];
    long base = ds.version();
    long before = latestVersion();
    ModelState baseState = states.get(base);
    String line = "h" + h + "@v" + base + " " + what;
    pendingNote = null;
    UnaryOperator<ModelState> change;
    try {
      change = op.apply(ds, baseState);
    } catch (CommitConflictException | InvalidArgumentException | InvalidSchemaException
        | SchemaMismatchException e) {
      history.add(line + notes() + " -> " + e.getClass().getSimpleName());
      outcomes.add(kind(what) + " -> " + e.getClass().getSimpleName());
      long after = latestVersion();
      if (after != before) {
        throw failure("a failed " + what + " (" + e + ") published version " + after + " (latest was " + before
            + ")");
      }
      if (ds.version() != base) {
        throw failure("a failed " + what + " moved the handle from v" + base + " to v" + ds.version());
      }
      return;
    } catch (QuiverException e) {
      history.add(line + notes() + " -> " + e.getClass().getSimpleName());
      throw failure("unexpected error type from " + what + ": " + e);
    }
    long after = latestVersion();
    if (after == before) {
      history.add(line + notes() + " -> nothing to commit");
      outcomes.add(kind(what) + " -> nothing to commit");
      ModelState expected = change.apply(baseState);
      if (!expected.equals(baseState)) {
        throw failure(what + " committed nothing, but the model expects a change at v" + base + ": "
            + baseState.diff(expected));
      }
      return;
    }
    history.add(line + notes() + " -> v" + after);
    outcomes.add(kind(what) + (base == before ? " -> committed" : " -> committed stale"));
    if (after != before + 1) {
      throw failure("one commit moved the latest version from " + before + " to " + after);
    }
    if (ds.version() != after) {
      throw failure("the committing handle is at v" + ds.version() + ", not at its commit v" + after);
    }
    states.put(after, change.apply(states.get(before)));
  }

  private String notes() {
    return pendingNote == null ? "" : " [" + pendingNote + "]";
  }

  // ---------------------------------------------------------------- the invariant

  /**
   * After every step: the latest version scans equal to the model, the previous version and a sampled
   * earlier one still scan to the model's states at those versions, and {@code validate()} passes.
   */
  public void check() {
    long latest = latestVersion();
    if (latest != states.lastKey()) {
      throw failure("latest version is " + latest + ", the model's is " + states.lastKey());
    }
    List<Long> toScan = new ArrayList<>(List.of(latest));
    Long previous = states.lowerKey(latest);
    if (previous != null) {
      toScan.add(previous);
    }
    List<Long> older = new ArrayList<>(states.headMap(previous == null ? latest : previous).keySet());
    for (int i = 0; i < SAMPLED_VERSIONS && !older.isEmpty(); i++) {
      toScan.add(older.remove(sampler.nextInt(older.size())));
    }
    for (long v : toScan) {
      try (Dataset at = roots[0].checkout(v)) {
        String diff = states.get(v).diff(scan(at));
        if (diff != null) {
          throw failure("version " + v + " differs from the model: " + diff);
        }
        if (v == latest) {
          ValidationReport report = at.validate();
          if (!report.isValid()) {
            throw failure("validate() failed at v" + v + ": " + report);
          }
        }
      }
    }
  }

  private AssertionError failure(String message) {
    return new AssertionError(message + "\nhistory:\n  " + String.join("\n  ", history));
  }

  /** The kind of each write so far and how it ended, for statistics. */
  public List<String> outcomes() {
    return List.copyOf(outcomes);
  }

  private static String kind(String what) {
    return what.replaceAll("[-0-9#=<>]+|c[0-9]+|where.*", "").replaceAll(" +", " ").trim();
  }

  /** What happened so far, one line per step. */
  public List<String> history() {
    return List.copyOf(history);
  }

  // ---------------------------------------------------------------- helpers

  private long latestVersion() {
    return roots[0].latestVersion();
  }

  private void replaceView(int h, Dataset next) {
    if (views[h] != roots[h]) {
      views[h].close();
    }
    views[h] = next;
  }

  private static List<String> names(Dataset ds) {
    return ds.schema().toArrow().getFields().stream().map(Field::getName).toList();
  }

  /** The {@code k}-th (modulo) non-id column of the handle's schema; a validation error when there is none. */
  private static String column(Dataset ds, int k) {
    List<String> cols = new ArrayList<>(names(ds));
    cols.remove("id");
    if (cols.isEmpty()) {
      throw new InvalidArgumentException("model: no column besides id at v" + ds.version());
    }
    return cols.get(Math.floorMod(k, cols.size()));
  }

  private static Field intField(String name) {
    return new Field(name, FieldType.nullable(INT32), null);
  }

  /** A cell's value: a function of the row, the column and a salt. */
  static int value(long id, String column, int salt) {
    return Math.floorMod(id * 37 + column.hashCode() * 7L + salt * 101L, 1000);
  }

  private static Map<Long, Object> valuesOf(ModelState state, String column, int salt) {
    Map<Long, Object> values = new HashMap<>();
    state.rows().keySet().forEach(id -> values.put(id, value(id, column, salt)));
    return values;
  }

  private Map<Long, Map<String, Object>> newRows(int n, List<String> columns) {
    Map<Long, Map<String, Object>> rows = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      long id = nextId++;
      Map<String, Object> row = new HashMap<>();
      for (String c : columns) {
        row.put(c, c.equals("id") ? (Object) id : (Object) value(id, c, 0));
      }
      rows.put(id, row);
    }
    return rows;
  }

  private VectorSchemaRoot batch(Schema schema, Map<Long, Map<String, Object>> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    int i = 0;
    for (Map<String, Object> row : rows.values()) {
      for (FieldVector v : root.getFieldVectors()) {
        Object value = row.get(v.getField().getName());
        if (v instanceof BigIntVector b) {
          b.setSafe(i, (Long) value);
        } else if (value == null) {
          ((IntVector) v).setNull(i);
        } else {
          ((IntVector) v).setSafe(i, (Integer) value);
        }
      }
      i++;
    }
    root.setRowCount(i);
    return root;
  }

  /** {@code column}'s values computed from the input's {@code id} vector. */
  private static VectorSchemaRoot computed(VectorSchemaRoot input, BufferAllocator alloc, String column, int salt) {
    BigIntVector ids = (BigIntVector) input.getVector("id");
    IntVector out = new IntVector(intField(column), alloc);
    out.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      if (ids.isNull(i)) {
        out.setNull(i);
      } else {
        out.set(i, value(ids.get(i), column, salt));
      }
    }
    out.setValueCount(input.getRowCount());
    return new VectorSchemaRoot(List.of(out));
  }

  /**
   * Stages {@code column} for every fragment of the handle's version (deleted rows get null, as the physical
   * row still needs a value) and commits the writes in one commit.
   */
  private void stageAndCommit(Dataset ds, ColumnSchema schema, String column, int salt) {
    Map<Long, Long> idByAddress = new HashMap<>();
    try (ArrowReader reader = ds.newScan().columns("id").withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) root.getVector("id");
        UInt8Vector addresses = (UInt8Vector) root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          idByAddress.put(addresses.get(i), ids.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<StagedColumnWrite> writes = new ArrayList<>();
    for (Fragment f : ds.manifest().fragments()) {
      Integer[] values = new Integer[(int) f.physicalRows()];
      for (int offset = 0; offset < values.length; offset++) {
        Long id = idByAddress.get((f.id() << 32) | offset);
        values[offset] = id == null ? null : value(id, column, salt);
      }
      try (ArrowReader batches = stream(schema.arrowSchema(), values)) {
        writes.add(ds.writeFragmentColumn(f.id(), batches, schema));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    note(writes.size() + " fragments");
    ds.commitColumnWrites(writes);
  }

  private ArrowReader stream(Schema schema, Integer[] values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      IntVector v = (IntVector) root.getVector(0);
      v.allocateNew(values.length);
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          v.setNull(i);
        } else {
          v.set(i, values[i]);
        }
      }
      root.setRowCount(values.length);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** Every live row of {@code ds}'s version, as a model state. */
  private static ModelState scan(Dataset ds) {
    List<String> cols = names(ds);
    TreeMap<Long, Map<String, Object>> rows = new TreeMap<>();
    try (ArrowReader reader = ds.scan()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          Map<String, Object> row = new HashMap<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.put(v.getField().getName(), v.getObject(i));
          }
          Long id = (Long) row.get("id");
          if (rows.put(id, row) != null) {
            throw new AssertionError("id " + id + " scanned twice at v" + ds.version());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ModelState(cols, rows);
  }

  @Override
  public void close() {
    for (int h = 0; h < HANDLES; h++) {
      if (views[h] != null && views[h] != roots[h]) {
        views[h].close();
      }
      if (roots[h] != null) {
        roots[h].close();
      }
    }
    allocator.close();
  }

  @Override
  public String toString() {
    return "ModelWorld[" + history.size() + " steps, latest v" + states.lastKey() + "]";
  }
}
