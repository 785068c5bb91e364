package io.quiver.model;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.Indices;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.Session;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.dataset.ValidationReport;
import io.quiver.dataset.VersionInfo;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.internal.txn.LedgerUpdate;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.ScenarioTable.ManualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
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
 *
 * <p>Exactly-once: keyed appends (keys from a small pool per generation, through {@code append} or workers'
 * results; retried with the same rows, reused with others), application sequences, driver crashes
 * recovered through {@code findCommit}, restarted processes (new handles with their own session), cleanups
 * down to the latest version and expiry of the idempotence ledger. Time is the world's {@link ManualClock}
 * (commit times, cleanup cutoffs, ledger expiry): a second per step, 1 to 3 hours per cleanup (well within
 * {@code idempotence.retention}), and past the retention only in {@link #expire}. After every step, besides
 * the scans: every key's rows appear at most once and only those of its commit, {@code findCommit} answers
 * COMMITTED at the key's version (UNKNOWN once expired, never NOT_COMMITTED), NOT_COMMITTED for keys never
 * committed, and every application's watermark is the model's highest committed sequence.
 *
 * <p>Scalar indices: handles create (btree or bitmap, on any column), optimize and drop them. They change no row,
 * so the model's states stay; after every step an index of the latest version, and one of a kept older version,
 * answers a few filters on its column as the scan without indices does ({@link Invariant#INDEX_NEVER_STALE}).
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
  /** Tags the model keeps at most (each is scanned after every step). */
  private static final int MAX_TAGS = 3;

  private final RootAllocator allocator = new RootAllocator();
  private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final String uri;
  private final DatasetOptions opts;
  /** Versions a cleanup has not removed (the model keeps every state: stale handles build on removed ones). */
  private final TreeSet<Long> live = new TreeSet<>();
  /** The tags the model created and has not deleted: name to version (a cleanup must keep them). */
  private final TreeMap<String, Long> tags = new TreeMap<>();
  private int nextTag;
  private final Dataset[] roots = new Dataset[HANDLES];
  private final Dataset[] views = new Dataset[HANDLES];
  private final TreeMap<Long, ModelState> states = new TreeMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> outcomes = new ArrayList<>();
  private final Random sampler = new Random(8);
  /** Picks the older version whose indices are checked and the filters' values (apart from {@link #sampler}). */
  private final Random indexSampler = new Random(13);
  private long nextId;
  private int nextColumn = 1;
  private int nextSalt = 1;

  /**
   * Creates the table at {@code uri} (where none exists) with {@value #INITIAL_ROWS} rows and opens the
   * handles. {@code options} builds the dataset options around the world's leak-checking allocator.
   */
  /**
   * Table configuration that makes segmented manifests merge and split, and segment lists form and dissolve,
   * within a short history.
   */
  public static final Map<String, String> SMALL_SEGMENTS =
      Map.of("manifest.segment.merge-factor", "2", "manifest.segment.max-fragments", "4",
          "manifest.segment.list-max-segments", "2");

  public ModelWorld(String uri, Function<BufferAllocator, DatasetOptions> options) {
    this.uri = uri;
    this.opts = options.apply(allocator).toBuilder().clock(clock).build();
    try {
      Map<Long, Map<String, Object>> rows = newRows(INITIAL_ROWS, List.of("id", "a"));
      try (VectorSchemaRoot batch = batch(SCHEMA, rows)) {
        // Segments of at most 4 fragments, merged 2 by 2: most commits of a history merge or split one.
        roots[0] = Dataset.create(uri, SCHEMA, List.of(batch), opts, SMALL_SEGMENTS);
      }
      for (int h = 1; h < HANDLES; h++) {
        roots[h] = Dataset.open(uri, opts);
      }
      System.arraycopy(roots, 0, views, 0, HANDLES);
      states.put(roots[0].version(), new ModelState(List.of("id", "a"), new TreeMap<>(rows)));
      live.add(roots[0].version());
      history.add("create ids 0.." + (INITIAL_ROWS - 1) + " -> v" + roots[0].version());
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  // ---------------------------------------------------------------- actions

  /** Appends {@code n} new rows through handle {@code h}, with the handle's schema. */
  void append(int h, int n) {
    attempt("h" + h, views[h], "append " + n + " rows", (ds, base) -> {
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
      ds.columns().add(List.of(intField(name)));
      return latest -> latest.withColumn(name, Map.of());
    });
  }

  /** Adds a new column computed from {@code id} in every fragment of the handle's version. */
  void addComputedColumn(int h) {
    String name = "c" + nextColumn++;
    attempt(h, "add computed column " + name, (ds, base) -> {
      ds.columns().add(List.of(intField(name)), List.of("id"), (input, alloc) -> computed(input, alloc, name, 0));
      return latest -> latest.withColumn(name, valuesOf(base, name, 0));
    });
  }

  /** Drops the {@code k}-th non-id column of the handle's schema. */
  void drop(int h, int k) {
    attempt(h, "drop column #" + k, (ds, base) -> {
      String col = column(ds, k);
      note(col);
      ds.columns().drop(col);
      return latest -> latest.has(col) ? latest.withoutColumn(col) : latest;
    });
  }

  /** Stages a new column for every fragment of the handle's version, then commits the staged writes. */
  void stagedNewColumn(int h) {
    String name = "c" + nextColumn++;
    int salt = nextSalt++;
    attempt(h, "staged write of new column " + name, (ds, base) -> {
      ColumnSchema schema = ds.columns().newSchema(List.of(intField(name)), List.of(), List.of());
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
      ColumnSchema schema = ds.columns().newSchema(List.of(), List.of(col), List.of());
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
      ds.columns().replace(List.of(col), List.of("id"), (input, alloc) -> computed(input, alloc, col, salt));
      return latest -> latest.withValues(col, valuesOf(base, col, salt));
    });
  }

  void compact(int h) {
    attempt(h, "compact", (ds, base) -> {
      ds.compact(CompactionOptions.defaults());
      return latest -> latest;
    });
  }

  /** Restores the version at position {@code pick} (modulo) of the committed versions. */
  void restore(int h, int pick) {
    List<Long> versions = new ArrayList<>(live);
    long target = versions.get(Math.floorMod(pick, versions.size()));
    attempt(h, "restore v" + target, (ds, base) -> {
      ds.restore(target);
      ModelState old = states.get(target);
      return latest -> old;
    });
  }

  // ---------------------------------------------------------------- scalar indices

  /**
   * Creates, through handle {@code h}, an index of {@code kind} on the {@code k}-th column (modulo, {@code id}
   * included) of the handle's schema, named {@code ix_<column>_<kind>}. An index changes no row, so the model's
   * state stays as it is; the commit is a version like any other. A name the handle's version already has raises
   * InvalidArgumentException, and a name a concurrent commit took (or a column it dropped) a typed conflict: both
   * publish nothing. An index built on the latest version covers every fragment with live rows.
   */
  void createIndex(int h, int k, ScalarIndex.Kind kind) {
    attempt(h, "create " + kind.label() + " index on column #" + k, (ds, base) -> {
      List<String> cols = names(ds);
      String col = cols.get(Math.floorMod(k, cols.size()));
      String name = "ix_" + col + "_" + kind.label();
      note(name);
      boolean fresh = ds.version() == latestVersion();
      ds.indices().create(name, kind, col);
      expectFullCoverage(ds, name, fresh, "a create");
      return latest -> latest;
    });
  }

  /**
   * Optimizes, through handle {@code h}, the index at position {@code pick} (modulo) of the handle's version's
   * indices (nothing when it has none, or when the index covers every fragment already). Changes no row.
   */
  void optimizeIndex(int h, int pick) {
    attempt(h, "optimize index #" + pick, (ds, base) -> {
      Optional<String> name = indexAt(ds, pick);
      if (name.isEmpty()) {
        note("no index");
        return latest -> latest;
      }
      note(name.get() + " " + ds.indices().coverage(name.get()));
      boolean fresh = ds.version() == latestVersion();
      ds.indices().optimize(name.get());
      expectFullCoverage(ds, name.get(), fresh, "an optimize");
      return latest -> latest;
    });
  }

  /** Drops, through handle {@code h}, the index at position {@code pick} (modulo) of the handle's version's. */
  void dropIndex(int h, int pick) {
    attempt(h, "drop index #" + pick, (ds, base) -> {
      Optional<String> name = indexAt(ds, pick);
      if (name.isEmpty()) {
        note("no index");
        return latest -> latest;
      }
      note(name.get());
      ds.indices().drop(name.get());
      if (ds.indices().get(name.get()).isPresent()) {
        throw failure("index " + name.get() + " is still listed at v" + ds.version() + ", which dropped it");
      }
      return latest -> latest;
    });
  }

  private static Optional<String> indexAt(Dataset ds, int pick) {
    List<ScalarIndex> indices = ds.indices().list();
    return indices.isEmpty() ? Optional.empty()
        : Optional.of(indices.get(Math.floorMod(pick, indices.size())).name());
  }

  /**
   * After a create or optimize that committed on the latest version ({@code fresh}: no other commit to rebase
   * onto), the index covers every fragment with live rows of the version it committed.
   */
  private void expectFullCoverage(Dataset ds, String name, boolean fresh, String what) {
    if (!fresh || ds.indices().get(name).isEmpty()) {
      return;
    }
    Indices.Coverage coverage = ds.indices().coverage(name);
    if (coverage.uncoveredFragments() != 0) {
      throw failure(Invariant.INDEX_NEVER_STALE, what + " of " + name + " on the latest version left fragments"
          + " uncovered at v" + ds.version() + ": " + coverage);
    }
  }

  /** Moves handle {@code h} to the version at position {@code pick} (modulo) of the committed versions. */
  void checkout(int h, int pick) {
    List<Long> versions = new ArrayList<>(live);
    long target = versions.get(Math.floorMod(pick, versions.size()));
    replaceView(h, roots[h].checkout(target));
    history.add("h" + h + " checkout v" + target);
  }

  /** Moves handle {@code h} to the latest version. */
  void refresh(int h) {
    replaceView(h, roots[h].checkoutLatest());
    history.add("h" + h + " refresh -> v" + views[h].version());
  }

  // ---------------------------------------------------------------- exactly-once: keys, sequences, crashes, restarts, cleanups

  /** The handle index of "a new process": a fresh {@code Dataset.open} (its own session) for one action. */
  public static final int NEW_PROCESS = HANDLES;
  /** Idempotence keys in the pool (per generation), so that keys are reused. */
  public static final int KEYS = 4;
  /** Application ids in the pool (per generation). */
  public static final int APPLICATIONS = 2;

  private enum Expect { COMMIT, ALREADY, ALREADY_OR_CONFLICT, CONFLICT }

  /** What the model knows of one idempotence key. */
  private static final class KeyRecord {
    final String key;
    /** The rows of the attempt that committed, or else of the latest attempt (a retry writes them again). */
    Map<Long, Map<String, Object>> rows;
    /** The columns the committed rows were written with: a keyed append's digest covers the schema. */
    List<String> columns;
    /** The committed version, or null. */
    Long version;
    Set<Long> committedIds = Set.of();
    /** The ids of every attempt's rows. */
    final Set<Long> everyId = new HashSet<>();
    /** The latest version when the clock passed the retention: the next commit expires the key. */
    Long expiredAfter;
    /** The encoded workers' results of the key's latest attempt through workers, kept by its driver. */
    List<byte[]> saved;
    Map<Long, Map<String, Object>> savedRows;
    List<String> savedColumns;
    long savedRead;

    KeyRecord(String key) {
      this.key = key;
    }
  }

  /** What the model knows of one application's sequence watermark. */
  private static final class AppRecord {
    final String app;
    long sequence = -1;
    long version;
    Long expiredAfter;
    /** Every committed sequence of the application, by version. */
    final Map<Long, Long> commits = new HashMap<>();

    AppRecord(String app) {
      this.app = app;
    }
  }

  private final Map<String, KeyRecord> keys = new LinkedHashMap<>();
  /** The encoded results of the latest {@link #write} through workers. */
  private List<byte[]> lastResults;
  private final Map<String, AppRecord> apps = new LinkedHashMap<>();
  /** Bumped by {@link #expire}: keys and applications of earlier generations are never used again. */
  private int generation;

  private String key(int k) {
    return "g" + generation + "/k" + Math.floorMod(k, KEYS);
  }

  private String app(int a) {
    return "g" + generation + "/app" + Math.floorMod(a, APPLICATIONS);
  }

  /**
   * A keyed append of the {@code k}-th key of the pool through handle {@code h} (or {@link #NEW_PROCESS}):
   * with {@code retry}, the rows of the key's earlier attempt again (written into new files, in another order
   * or split), else {@code n} new rows; through {@code append(batches, withIdempotenceKey)}, or with {@code
   * distributed} through workers' {@code WriteResult}s (split after row {@code split}) and {@code
   * commitWriteResults}. The model expects: a key never committed commits (or fails with a typed conflict);
   * the committed key's rows again return its version and publish nothing; other rows under a committed
   * key raise {@link IdempotenceKeyConflictException} and publish nothing.
   */
  void keyedAppend(int h, int k, int n, boolean retry, boolean distributed, int split) {
    String key = key(k);
    onHandle(h, (who, ds) -> keyed(who, ds, key, n, retry, distributed, split));
  }

  private void keyed(String who, Dataset ds, String key, int n, boolean retry, boolean distributed, int split) {
    KeyRecord rec = keys.computeIfAbsent(key, KeyRecord::new);
    boolean same = retry && rec.rows != null;
    String what = "keyed append " + key + (same ? " retry" : " " + n + " new rows") + via(distributed, split);
    attempt(who, ds, what, (d, base) -> {
      List<String> cols = names(d);
      Map<Long, Map<String, Object>> rows = same ? project(rec.rows, cols) : newRows(n, cols);
      Expect expect = rec.version == null ? Expect.COMMIT
          : !same ? Expect.CONFLICT
          : cols.equals(rec.columns) ? Expect.ALREADY : Expect.ALREADY_OR_CONFLICT;
      note("ids " + rows.keySet() + ", expect " + expect);
      if (rec.version == null) {
        rec.rows = rows;
        rec.columns = cols;
      }
      rec.everyId.addAll(rows.keySet());
      CommitOptions options = opts.commitOptions().withIdempotenceKey(key);
      lastResults = null;
      long read = d.version();
      try {
        return expectKeyed(d, base, rec, expect, rows, () -> write(d, d, rows, options, distributed, split));
      } finally {
        if (lastResults != null) {
          save(rec, lastResults, rows, cols, read);
        }
      }
    });
  }

  private UnaryOperator<ModelState> expectKeyed(Dataset d, ModelState baseState, KeyRecord rec, Expect expect,
      Map<Long, Map<String, Object>> rows, LongSupplier commit) {
    long base = d.version();
    long before = latestVersion();
    long returned;
    try {
      returned = commit.getAsLong();
    } catch (IdempotenceKeyConflictException e) {
      if (expect != Expect.CONFLICT && expect != Expect.ALREADY_OR_CONFLICT) {
        throw failure("key '" + rec.key + "' raised " + e + ", but the model expects " + expect
            + (rec.version == null ? " (the key was never committed)" : ""));
      }
      if (e.committedVersion() != rec.version) {
        throw failure("the conflict of key '" + rec.key + "' names v" + e.committedVersion() + ", the key committed v"
            + rec.version);
      }
      pendingOutcome = "key conflict";
      return latest -> latest;
    } catch (CommitConflictException | SchemaMismatchException e) {
      if (expect == Expect.COMMIT) {
        throw e; // a typed failure of a first commit: the attempt checks that nothing was published
      }
      if (expect == Expect.ALREADY_OR_CONFLICT && e instanceof SchemaMismatchException) {
        pendingOutcome = "schema mismatch"; // results written with another schema than the latest one
        return latest -> latest;
      }
      throw failure("key '" + rec.key + "' (committed at v" + rec.version + ") again, expecting " + expect + ", failed with "
          + e);
    }
    long after = latestVersion();
    if (expect == Expect.COMMIT) {
      if (after == before) {
        throw failure("a keyed append of key '" + rec.key + "', never committed, published nothing (it returned v"
            + returned + ")");
      }
      if (returned != after) {
        throw failure("a keyed append published v" + after + " but returned v" + returned);
      }
      rec.version = after;
      rec.committedIds = Set.copyOf(rows.keySet());
      return latest -> latest.withRows(landed(rows, latest));
    }
    if (expect == Expect.CONFLICT) {
      throw failure("key '" + rec.key + "' (committed at v" + rec.version + ") reused with other rows returned v"
          + returned + (after != before ? " and published v" + after : "")
          + " instead of raising IdempotenceKeyConflictException");
    }
    if (after != before) {
      throw failure("a retry of key '" + rec.key + "' with the same rows (committed at v" + rec.version
          + ") published v" + after + " (it returned v" + returned + ")");
    }
    if (returned != rec.version) {
      throw failure("a retry of key '" + rec.key + "' returned v" + returned + ", but the key committed v" + rec.version);
    }
    if (d.version() < Math.max(base, rec.version) || d.version() > after) {
      throw failure("a retry of key '" + rec.key + "' found committed at v" + rec.version + " left its handle at v"
          + d.version() + " (it was at v" + base + ", the latest is v" + after + ")");
    }
    pendingOutcome = "already committed";
    return latest -> latest;
  }

  /**
   * An append of {@code n} new rows under the {@code a}-th application's sequence, through handle {@code h}
   * (or {@link #NEW_PROCESS}): {@code mode} 0 the watermark's next sequence, 1 a jump ahead, 2 the
   * watermark's own sequence again, 3 an older one. With {@code newDriver} (and {@code distributed}), the
   * workers run on handle {@code h}'s version and a new process (the restarted driver) commits their
   * results. The model expects a sequence above the watermark to
   * commit (or fail with a typed conflict) and one at or below it to return the watermark's version and
   * publish nothing.
   */
  void sequenced(int h, int a, int mode, int n, boolean distributed, int split, boolean newDriver) {
    String app = app(a);
    AppRecord rec = apps.computeIfAbsent(app, AppRecord::new);
    long seq = switch (Math.floorMod(mode, 4)) {
      case 0 -> rec.sequence + 1;
      case 1 -> rec.sequence + 3;
      case 2 -> Math.max(0, rec.sequence);
      default -> Math.max(0, rec.sequence - 2);
    };
    boolean handOver = newDriver && distributed && h < HANDLES;
    Dataset workers = handOver ? views[h] : null;
    onHandle(handOver ? NEW_PROCESS : h, (who, ds) -> attempt(handOver ? "new driver (workers at h" + h + "@v"
        + workers.version() + ")" : who, ds, "append " + n + " rows as " + app + " sequence " + seq
        + via(distributed, split), (d, base) -> {
          boolean replay = seq <= rec.sequence;
          Map<Long, Map<String, Object>> rows = newRows(n, names(handOver ? workers : d));
          note("ids " + rows.keySet() + ", watermark " + (rec.sequence < 0 ? "none" : rec.sequence + " at v" + rec.version));
          long before = latestVersion();
          long from = d.version();
          long returned;
          try {
            returned = write(handOver ? workers : d, d, rows, opts.commitOptions().withApplicationSequence(app, seq),
                distributed, split);
          } catch (CommitConflictException | SchemaMismatchException e) {
            if (!replay) {
              throw e;
            }
            throw failure("a replay of " + app + " sequence " + seq + " (watermark " + rec.sequence + " at v" + rec.version
                + ") failed with " + e + " instead of returning v" + rec.version);
          }
          long after = latestVersion();
          if (replay) {
            if (after != before) {
              throw failure("a replay of " + app + " sequence " + seq + " (watermark " + rec.sequence + ") published v"
                  + after);
            }
            if (returned != rec.version) {
              throw failure("a replay of " + app + " sequence " + seq + " returned v" + returned + ", but the watermark "
                  + rec.sequence + " is at v" + rec.version);
            }
            pendingOutcome = "already committed";
            return latest -> latest;
          }
          if (after == before || returned != after) {
            throw failure(app + " sequence " + seq + " above the watermark " + rec.sequence + " returned v" + returned
                + " and the latest version went from v" + before + " to v" + after);
          }
          rec.sequence = seq;
          rec.version = after;
          rec.commits.put(after, seq);
          return latest -> latest.withRows(landed(rows, latest));
        }));
  }

  /**
   * A driver crash. Handle {@code h}'s driver (or a {@link #NEW_PROCESS}'s) runs a keyed append of the key's
   * rows (those of its earlier attempt, or {@code n} new ones) and dies: with {@code afterCommit} after the
   * commit, before learning its outcome; else after writing its files, before committing. The process
   * restarts (handle {@code h} is re-opened) and the restarted driver asks {@code findCommit(key,
   * attemptReadVersion)}, which must say COMMITTED at the key's version or NOT_COMMITTED, and follows the
   * documented protocol: it retries with the same key and rows from a newly opened handle — which must
   * publish nothing when the key committed, and commit otherwise. With {@code reuse}, a driver that crashed
   * before committing commits its workers' saved results (read at the crashed attempt's version) instead of
   * re-running them.
   */
  void crash(int h, int k, int n, boolean afterCommit, boolean distributed, int split, boolean reuse) {
    String key = key(k);
    KeyRecord rec = keys.computeIfAbsent(key, KeyRecord::new);
    long[] readVersion = new long[1];
    List<byte[]> saved = new ArrayList<>();
    List<Map<Long, Map<String, Object>>> savedRows = new ArrayList<>();
    List<List<String>> savedColumns = new ArrayList<>();
    onHandle(h, (who, ds) -> {
      readVersion[0] = ds.version();
      if (afterCommit) {
        keyed(who, ds, key, n, true, distributed, split);
        history.add(who + " crashed before learning the outcome");
        return;
      }
      List<String> cols = names(ds);
      Map<Long, Map<String, Object>> rows = rec.rows != null ? project(rec.rows, cols) : newRows(n, cols);
      if (rec.version == null) {
        rec.rows = rows;
        rec.columns = cols;
      }
      rec.everyId.addAll(rows.keySet());
      try (DistributedWriter worker = ds.distributed().newWriter();
          VectorSchemaRoot batch = batch(ds.schema().toArrow(), rows)) {
        saved.add(worker.write(List.of(batch)).encode());
      }
      save(rec, saved, rows, cols, ds.version());
      savedRows.add(rows);
      savedColumns.add(cols);
      history.add(who + "@v" + ds.version() + " keyed append " + key + ": wrote ids " + rows.keySet()
          + ", crashed before committing");
    });
    if (h < HANDLES) {
      restart(h);
    }
    try (Dataset restarted = Dataset.open(uri, restarted())) {
      CommitLookup found = restarted.distributed().findCommit(key, readVersion[0]);
      history.add("restarted driver: findCommit(" + key + ", " + readVersion[0] + ") -> " + found.status()
          + (found.isCommitted() ? " v" + found.version() : ""));
      expectLookup(rec, readVersion[0], found, "after a crash");
      if (reuse && !saved.isEmpty()) {
        // The driver kept its workers' results (a checkpoint): it commits them instead of re-running the workers.
        attempt("restarted driver", restarted, "keyed append " + key + ": commit the crashed attempt's saved results"
            + " (read at v" + readVersion[0] + ")", (d, base) -> {
              Expect expect = rec.version == null ? Expect.COMMIT
                  : savedColumns.get(0).equals(rec.columns) ? Expect.ALREADY : Expect.ALREADY_OR_CONFLICT;
              note("ids " + savedRows.get(0).keySet() + ", expect " + expect);
              List<WriteResult> results = List.of(WriteResult.decode(saved.get(0)));
              return expectKeyed(d, base, rec, expect, savedRows.get(0),
                  () -> d.distributed().commit(results, WriteMode.APPEND, opts.commitOptions().withIdempotenceKey(key)));
            });
      } else {
        keyed("restarted driver", restarted, key, n, true, !distributed, split + 1);
      }
    }
  }

  private static void save(KeyRecord rec, List<byte[]> results, Map<Long, Map<String, Object>> rows,
      List<String> columns, long read) {
    rec.saved = List.copyOf(results);
    rec.savedRows = rows;
    rec.savedColumns = columns;
    rec.savedRead = read;
  }

  /**
   * A restarted driver (a new process) commits the workers' results it kept from the {@code k}-th key's
   * latest attempt through workers — possibly read at a version a cleanup removed, under another schema.
   * The model expects: a key never committed commits them (or a typed conflict); the committed rows again
   * are recognised (publish nothing); other rows raise IdempotenceKeyConflictException. (A cleanup discards
   * the results of keys not committed: their files may be gone.)
   */
  void commitSaved(int k) {
    KeyRecord rec = keys.get(key(k));
    if (rec == null || rec.saved == null) {
      history.add("restarted driver: no saved results of " + key(k));
      return;
    }
    try (Dataset driver = Dataset.open(uri, restarted())) {
      attempt("restarted driver", driver, "keyed append " + rec.key + ": commit saved results read at v" + rec.savedRead,
          (d, base) -> {
            boolean sameRows = rec.version != null && rec.committedIds.equals(rec.savedRows.keySet());
            Expect expect = rec.version == null ? Expect.COMMIT
                : !sameRows ? Expect.CONFLICT
                : rec.savedColumns.equals(rec.columns) ? Expect.ALREADY : Expect.ALREADY_OR_CONFLICT;
            note("ids " + rec.savedRows.keySet() + ", expect " + expect);
            if (rec.version == null) {
              rec.rows = rec.savedRows;
              rec.columns = rec.savedColumns;
            }
            List<WriteResult> results = rec.saved.stream().map(WriteResult::decode).toList();
            return expectKeyed(d, base, rec, expect, rec.savedRows,
                () -> d.distributed().commit(results, WriteMode.APPEND, opts.commitOptions().withIdempotenceKey(rec.key)));
          });
    }
  }

  /** Closes handle {@code h} and opens it again at the latest version, as a restarted process (a new session). */
  void restart(int h) {
    if (views[h] != roots[h]) {
      views[h].close();
    }
    views[h] = null;
    Dataset old = roots[h];
    roots[h] = null;
    old.close();
    roots[h] = Dataset.open(uri, restarted());
    views[h] = roots[h];
    history.add("h" + h + " restarts (new process, new session) -> v" + roots[h].version());
  }

  /**
   * Advances the clock {@code hours} (well within the idempotence retention) and cleans up, through handle
   * {@code h}, every version but the latest; every file no longer referenced goes too.
   */
  void cleanup(int h, int hours) {
    clock.advance(Duration.ofHours(hours));
    long latest = latestVersion();
    CleanupReport report = views[h].cleanup(
        CleanupOptions.builder().before(clock.instant()).safetyWindow(Duration.ofMinutes(30)).build());
    history.add("h" + h + " cleanup after +" + hours + "h: removed " + report.versionsRemoved().size() + " versions, "
        + report.filesRemoved() + " files");
    TreeSet<Long> kept = new TreeSet<>(tags.values());
    kept.add(latest);
    afterCleanup(kept, "a cleanup down to the latest version v" + latest + " and the tagged ones");
    // The index files of the kept versions stay: their indices still answer (the latest's: after the step).
    for (long v : kept.headSet(latest)) {
      expectReadsAsModel(v, Invariant.KEPT_VERSIONS_READ_THE_SAME, IndexCheck.MODEL);
    }
  }

  /**
   * Advances the clock {@code hours} and cleans up, through handle {@code h}, the versions committed before the
   * version at position {@code pick} (modulo) of the live ones: it, every later one, the tagged ones and the
   * latest stay, each reading as it did before (the third invariant, checked here on every kept version).
   */
  void cleanupBefore(int h, int pick, int hours) {
    List<Long> versions = new ArrayList<>(live);
    long first = versions.get(Math.floorMod(pick, versions.size()));
    Map<Long, Instant> committed = new TreeMap<>();
    roots[0].versions().forEach(v -> committed.put(v.version(), v.timestamp()));
    Instant cutoff = committed.get(first);
    clock.advance(Duration.ofHours(hours));
    CleanupReport report = views[h].cleanup(
        CleanupOptions.builder().before(cutoff).safetyWindow(Duration.ofMinutes(30)).build());
    history.add("h" + h + " cleanup before v" + first + " (" + cutoff + ") after +" + hours + "h: removed "
        + report.versionsRemoved().size() + " versions, " + report.filesRemoved() + " files");
    TreeSet<Long> kept = new TreeSet<>(tags.values());
    kept.add(latestVersion());
    live.stream().filter(v -> !committed.get(v).isBefore(cutoff)).forEach(kept::add);
    afterCleanup(kept, "a cleanup of the versions before v" + first);
    for (long v : kept) {
      expectReadsAsModel(v, Invariant.KEPT_VERSIONS_READ_THE_SAME, IndexCheck.MODEL);
    }
  }

  private void afterCleanup(TreeSet<Long> kept, String what) {
    List<Long> remaining = roots[0].versions().stream().map(VersionInfo::version).sorted().toList();
    if (!remaining.equals(List.copyOf(kept))) {
      throw failure(Invariant.KEPT_VERSIONS_READ_THE_SAME, "after " + what + ", the versions are " + remaining
          + "; the model keeps " + kept + " (tags " + tags + ")");
    }
    live.clear();
    live.addAll(kept);
    // Unreferenced files went too: results kept for keys never committed no longer have their files.
    keys.values().stream().filter(r -> r.version == null).forEach(r -> r.saved = null);
  }

  /** Tags the version at position {@code pick} (modulo) of the live ones, under a name never used before. */
  void tag(int pick) {
    if (tags.size() >= MAX_TAGS) {
      untag(pick);
      return;
    }
    List<Long> versions = new ArrayList<>(live);
    long target = versions.get(Math.floorMod(pick, versions.size()));
    String name = "t" + nextTag++;
    roots[0].tags().create(name, target);
    tags.put(name, target);
    history.add("tag " + name + " = v" + target);
  }

  /** Deletes the tag at position {@code pick} (modulo) of the model's tags, if there is one. */
  void untag(int pick) {
    if (tags.isEmpty()) {
      history.add("untag: no tag");
      return;
    }
    String name = new ArrayList<>(tags.keySet()).get(Math.floorMod(pick, tags.size()));
    roots[0].tags().delete(name);
    history.add("untag " + name + " (v" + tags.remove(name) + ")");
  }

  /**
   * Advances the clock past the idempotence retention: every key and watermark committed so far expires
   * with the next commit (after which findCommit must say UNKNOWN for them, never NOT_COMMITTED). The key
   * and application pools move to a new generation, never used before.
   */
  void expire() {
    clock.advance(LedgerUpdate.DEFAULT_RETENTION.plusHours(1));
    long latest = latestVersion();
    keys.values().stream().filter(r -> r.expiredAfter == null).forEach(r -> r.expiredAfter = latest);
    apps.values().stream().filter(r -> r.expiredAfter == null).forEach(r -> r.expiredAfter = latest);
    generation++;
    history.add("clock +" + LedgerUpdate.DEFAULT_RETENTION.plusHours(1).toHours() + "h, past the retention: keys and"
        + " watermarks so far expire with the next commit after v" + latest + "; new keys are g" + generation + "/...");
  }

  private void onHandle(int h, BiConsumer<String, Dataset> body) {
    if (h < HANDLES) {
      body.accept("h" + h, views[h]);
      return;
    }
    try (Dataset fresh = Dataset.open(uri, restarted())) {
      body.accept("new process", fresh);
    }
  }

  /** The options of a restarted process: the same store and clock, a new session (cold caches). */
  private DatasetOptions restarted() {
    return opts.toBuilder().session(new Session(4 << 20)).build();
  }

  private static String via(boolean distributed, int split) {
    return distributed ? " via workers split at " + split : " via append rotated by " + split;
  }

  /**
   * Appends {@code rows} with {@code options}: one batch through {@code d.append}, rotated by {@code split}
   * rows; or, {@code distributed}, two results of workers on {@code workers}' version (split after row {@code
   * split}, encoded and decoded as a driver receives them) committed with {@code d.commitWriteResults}.
   */
  private long write(Dataset workers, Dataset d, Map<Long, Map<String, Object>> rows, CommitOptions options,
      boolean distributed, int split) {
    List<Map.Entry<Long, Map<String, Object>>> order = new ArrayList<>(rows.entrySet());
    Schema schema = workers.schema().toArrow();
    if (!distributed) {
      Collections.rotate(order, split);
      try (VectorSchemaRoot batch = batch(schema, ordered(order))) {
        return d.append(List.of(batch), options);
      }
    }
    int cut = Math.floorMod(split, order.size() + 1);
    List<WriteResult> results = new ArrayList<>();
    for (List<Map.Entry<Long, Map<String, Object>>> part : List.of(order.subList(0, cut),
        order.subList(cut, order.size()))) {
      if (part.isEmpty()) {
        continue;
      }
      try (DistributedWriter worker = workers.distributed().newWriter();
          VectorSchemaRoot batch = batch(schema, ordered(part))) {
        results.add(WriteResult.decode(worker.write(List.of(batch)).encode()));
      }
    }
    lastResults = results.stream().map(WriteResult::encode).toList();
    return d.distributed().commit(results, WriteMode.APPEND, options);
  }

  private static Map<Long, Map<String, Object>> ordered(List<Map.Entry<Long, Map<String, Object>>> entries) {
    Map<Long, Map<String, Object>> out = new LinkedHashMap<>();
    entries.forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** {@code rows} with exactly {@code columns} (a column they lack is null). */
  private static Map<Long, Map<String, Object>> project(Map<Long, Map<String, Object>> rows, List<String> columns) {
    Map<Long, Map<String, Object>> out = new LinkedHashMap<>();
    rows.forEach((id, row) -> {
      Map<String, Object> r = new HashMap<>();
      columns.forEach(c -> r.put(c, row.get(c)));
      out.put(id, r);
    });
    return out;
  }

  /** Appended {@code rows} as they read in {@code latest}'s schema. */
  private static Map<Long, Map<String, Object>> landed(Map<Long, Map<String, Object>> rows, ModelState latest) {
    return project(rows, latest.columns());
  }

  /**
   * What findCommit must answer for {@code rec}'s key and an attempt read at {@code attemptRead}: COMMITTED at
   * the key's version; UNKNOWN once it expired (the model asks only with read versions before the key's
   * commit); for a key never committed NOT_COMMITTED — or UNKNOWN when an expiry may have made the ledger
   * incomplete since {@code attemptRead}, never COMMITTED.
   */
  private void expectLookup(KeyRecord rec, long attemptRead, CommitLookup found, String context) {
    long latest = latestVersion();
    String call = "findCommit(" + rec.key + ", " + attemptRead + ") " + context + " -> " + found + "; ";
    boolean expired = rec.expiredAfter != null && latest > rec.expiredAfter;
    if (rec.version != null && !expired) {
      if (!found.isCommitted() || found.version() != rec.version) {
        throw failure(call + "the model says committed at v" + rec.version);
      }
    } else if (rec.version != null) {
      if (found.status() != CommitLookup.Status.UNKNOWN) {
        throw failure(call + "the key committed at v" + rec.version + " and expired after v" + rec.expiredAfter
            + ": the model expects UNKNOWN");
      }
    } else if (found.isCommitted()) {
      throw failure(call + "the key was never committed");
    } else if (found.status() == CommitLookup.Status.UNKNOWN && (attemptRead >= latest || !anyExpiry())) {
      throw failure(call + "the key was never committed and nothing expired since the attempt's read version:"
          + " the model expects NOT_COMMITTED");
    }
  }

  private boolean anyExpiry() {
    return generation > 0;
  }

  /** The rows of every key's attempts: only those of its commit may be in the table, each once. */
  private void checkKeyedRows(ModelState latest) {
    for (KeyRecord rec : keys.values()) {
      List<Long> stray = rec.everyId.stream()
          .filter(id -> latest.rows().containsKey(id) && !rec.committedIds.contains(id)).sorted().toList();
      if (!stray.isEmpty()) {
        throw failure(Invariant.NO_ROW_VISIBLE_TWICE, "rows of key '" + rec.key + "' that its commit" + (rec.version == null ? " (none)"
            : " (v" + rec.version + ", ids " + new TreeSet<>(rec.committedIds) + ")") + " did not write are in the"
            + " table: ids " + stray);
      }
    }
  }

  /** Every key's findCommit answers and every application's watermark, from the latest version's ledger. */
  private void checkLedger(long latest) {
    Dataset ds = roots[0];
    for (KeyRecord rec : keys.values()) {
      expectLookup(rec, 0, ds.distributed().findCommit(rec.key, 0), "after the step");
      if (rec.version != null) {
        expectLookup(rec, rec.version - 1, ds.distributed().findCommit(rec.key, rec.version - 1), "after the step");
      } else {
        expectLookup(rec, latest, ds.distributed().findCommit(rec.key, latest), "after the step");
      }
    }
    KeyRecord never = new KeyRecord("g" + generation + "/never");
    expectLookup(never, 0, ds.distributed().findCommit(never.key, 0), "after the step");
    expectLookup(never, latest, ds.distributed().findCommit(never.key, latest), "after the step");
    for (AppRecord rec : apps.values()) {
      Optional<CommitLedger.SequenceWatermark> mark = ds.distributed().applicationWatermark(rec.app);
      boolean expired = rec.expiredAfter != null && latest > rec.expiredAfter;
      if (rec.sequence < 0 || expired) {
        if (mark.isPresent()) {
          throw failure("the watermark of " + rec.app + " is " + mark.get() + "; the model expects none"
              + (expired ? " (it expired after v" + rec.expiredAfter + ")" : ""));
        }
      } else if (mark.isEmpty() || mark.get().sequence() != rec.sequence || mark.get().version() != rec.version) {
        throw failure("the watermark of " + rec.app + " is " + mark + "; the model's is sequence " + rec.sequence + " at v"
            + rec.version);
      }
    }
  }

  // ---------------------------------------------------------------- the protocol of one write

  private String pendingNote;
  private String pendingOutcome;

  private void note(String text) {
    pendingNote = pendingNote == null ? text : pendingNote + ", " + text;
  }

  /**
   * Runs {@code op} on handle {@code h}. {@code op} performs the Quiver call and returns the model's change,
   * computed from the state of the handle's version, to apply to the latest state if Quiver committed.
   */
  private void attempt(int h, String what, BiFunction<Dataset, ModelState, UnaryOperator<ModelState>> op) {
    readable(h);
    attempt("h" + h, views[h], what, op);
  }

  /**
   * Moves handle {@code h} to the latest version if a cleanup removed its version: an operation that reads
   * the table's data cannot run on a removed version (its files may be gone). Appends write only, so they
   * run from removed versions, and must then commit safely or fail with a typed conflict.
   */
  private void readable(int h) {
    if (!live.contains(views[h].version())) {
      long was = views[h].version();
      replaceView(h, roots[h].checkoutLatest());
      history.add("h" + h + " refresh (v" + was + " was removed) -> v" + views[h].version());
    }
  }

  /** {@link #attempt(int, String, BiFunction)} on any handle ({@code who} names it in the history). */
  private void attempt(String who, Dataset ds, String what,
      BiFunction<Dataset, ModelState, UnaryOperator<ModelState>> op) {
    clock.advance(Duration.ofSeconds(1));
    long base = ds.version();
    long before = latestVersion();
    ModelState baseState = states.get(base);
    String line = who + "@v" + base + " " + what;
    pendingNote = null;
    pendingOutcome = null;
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
      String outcome = pendingOutcome == null ? "nothing to commit" : pendingOutcome;
      history.add(line + notes() + " -> " + outcome);
      outcomes.add(kind(what) + " -> " + outcome);
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
    live.add(after);
  }

  private String notes() {
    return pendingNote == null ? "" : " [" + pendingNote + "]";
  }

  // ---------------------------------------------------------------- the invariants

  /**
   * The four properties every history must keep, written once and checked after every step (docs/conformance.md,
   * "Invariants"). A failure names the one it broke.
   */
  public enum Invariant {
    /**
     * No acknowledged commit lost: the latest version is the model's latest, and it holds every row of every
     * commit Quiver acknowledged (and of no commit it refused), its ledger answers for every key and sequence.
     */
    NO_ACKNOWLEDGED_COMMIT_LOST("no acknowledged commit lost"),
    /** No row visible twice: no scan returns an id twice, and no key's retried attempts leave extra rows. */
    NO_ROW_VISIBLE_TWICE("no row visible twice"),
    /**
     * Every version reads the same after any cleanup that keeps it: every kept version (the one before the latest,
     * every tagged one, a sampled older one; after a cleanup, every one it kept) scans to the model's state at it.
     */
    KEPT_VERSIONS_READ_THE_SAME("every kept version reads the same"),
    /**
     * Scalar indices are never stale: at the latest version and at a kept older one (after a cleanup, at every
     * one it kept), an index the version lists (one at random per version and step) answers each filter on its
     * column (equality on a present and on an absent value, a range, IN, IS NULL, and one every row matches)
     * with exactly the rows the scan without indices returns, which are the model's; and that last filter is
     * answered by an index for at least every fragment its coverage reports.
     */
    INDEX_NEVER_STALE("indices are never stale");

    private final String title;

    Invariant(String title) {
      this.title = title;
    }

    @Override
    public String toString() {
      return title;
    }
  }

  /** After every step: the four {@link Invariant}s, and {@code validate()} of the latest version. */
  public void check() {
    long latest = latestVersion();
    if (latest != states.lastKey()) {
      throw failure(Invariant.NO_ACKNOWLEDGED_COMMIT_LOST, "latest version is " + latest + ", the model's is "
          + states.lastKey());
    }
    ModelState actual = expectReadsAsModel(latest, Invariant.NO_ACKNOWLEDGED_COMMIT_LOST, IndexCheck.SCAN);
    try (Dataset at = roots[0].checkout(latest)) {
      ValidationReport report = at.validate();
      if (!report.isValid()) {
        throw failure(Invariant.NO_ACKNOWLEDGED_COMMIT_LOST, "validate() failed at v" + latest + ": " + report);
      }
    }
    checkKeyedRows(actual);
    checkLedger(latest);
    TreeSet<Long> toScan = new TreeSet<>(tags.values());
    Long previous = live.lower(latest);
    if (previous != null) {
      toScan.add(previous);
    }
    List<Long> older = new ArrayList<>(live.headSet(previous == null ? latest : previous));
    for (int i = 0; i < SAMPLED_VERSIONS && !older.isEmpty(); i++) {
      toScan.add(older.remove(sampler.nextInt(older.size())));
    }
    toScan.remove(latest);
    // One of the kept older versions also has its indices checked (time travel to an index an older commit built).
    List<Long> scanned = List.copyOf(toScan);
    long indexed = scanned.isEmpty() ? -1 : scanned.get(indexSampler.nextInt(scanned.size()));
    for (long v : toScan) {
      expectReadsAsModel(v, Invariant.KEPT_VERSIONS_READ_THE_SAME, v == indexed ? IndexCheck.MODEL : IndexCheck.NONE);
    }
  }

  /** How {@link #expectReadsAsModel} checks the indices of the version it scanned. */
  private enum IndexCheck {
    /** Not at all. */
    NONE,
    /** Indexed scans against the model; a scan without indices only to tell which is wrong when they differ. */
    MODEL,
    /** Indexed scans against the same scans without indices, and against the model. */
    SCAN
  }

  /**
   * Scans version {@code v} and fails, naming {@code invariant}, unless it equals the model's state at it; then
   * checks, as {@code indices} says, that its indices answer as the scan does ({@link Invariant#INDEX_NEVER_STALE}).
   */
  private ModelState expectReadsAsModel(long v, Invariant invariant, IndexCheck indices) {
    ModelState actual;
    try (Dataset at = roots[0].checkout(v)) {
      actual = scan(at);
      String diff = states.get(v).diff(actual);
      if (diff != null) {
        throw failure(invariant, "version " + v + " differs from the model: " + diff);
      }
      if (indices != IndexCheck.NONE) {
        expectIndicesAnswerAsScans(at, actual, indices == IndexCheck.SCAN);
      }
    } catch (RowScannedTwice e) {
      throw failure(Invariant.NO_ROW_VISIBLE_TWICE, e.getMessage());
    }
    return actual;
  }

  /** A filter of the index check, and which cell values (null for a null cell) it selects. */
  private record IndexFilter(Predicate predicate, java.util.function.Predicate<Object> selects) {}

  /**
   * One index of {@code at}'s version, picked at random ({@link Invariant#INDEX_NEVER_STALE}; one per check keeps
   * the cost of a step flat, and every index is checked over the steps of a history): each filter of {@link
   * #filtersOn} returns the rows of {@code state} (the model's, which the full scan just matched) the filter
   * selects, and with {@code againstScan} (always, where they differ) the rows the same scan without indices
   * returns; the filter every row matches is answered by an index for at least the fragments the index reports
   * covered. The filters' values come from {@code state}. (The scans without indices double the cost: {@link
   * #check} asks for them at the latest version, and compares the older one with the model alone.)
   */
  private void expectIndicesAnswerAsScans(Dataset at, ModelState state, boolean againstScan) {
    List<ScalarIndex> listed = at.indices().list();
    if (listed.isEmpty()) {
      return;
    }
    ScalarIndex index = listed.get(indexSampler.nextInt(listed.size()));
    String col = at.manifest().schema().pathOf(index.fieldId());
    Indices.Coverage coverage = at.indices().coverage(index.name());
    String which = "v" + at.version() + " index " + index.name() + " (" + index.kind().label() + " on " + col
        + ", created at v" + index.createdVersion() + ", " + index.segments().size() + " segments, " + coverage
        + ")";
    List<IndexFilter> filters = filtersOn(col, state, states.get(index.createdVersion()));
    for (int i = 0; i < filters.size(); i++) {
      IndexFilter filter = filters.get(i);
      ScanMetrics metrics = new ScanMetrics();
      ModelState indexed = scan(at, filter.predicate(), true, metrics);
      List<Long> unselected = state.rows().entrySet().stream()
          .filter(e -> !filter.selects().test(e.getValue().get(col))).map(Map.Entry::getKey).toList();
      String fromModel = state.without(unselected).diff(indexed);
      if (againstScan || fromModel != null) {
        ModelState unindexed = scan(at, filter.predicate(), false, null);
        String diff = unindexed.diff(indexed);
        if (diff != null) {
          throw failure(Invariant.INDEX_NEVER_STALE, which + ": " + filter.predicate() + " with indices differs from"
              + " the scan without ('model': the scan without indices, 'quiver': with them): " + diff);
        }
      }
      if (fromModel != null) {
        throw failure(Invariant.INDEX_NEVER_STALE, which + ": " + filter.predicate() + " differs from the model"
            + " (with and without indices alike): " + fromModel);
      }
      if (i == filters.size() - 1 && metrics.fragmentsAnsweredByIndex() < coverage.coveredFragments()) {
        throw failure(Invariant.INDEX_NEVER_STALE, which + ": " + filter.predicate() + " was answered by an"
            + " index for " + metrics.fragmentsAnsweredByIndex() + " fragments, fewer than the covered ones ("
            + metrics + ")");
      }
    }
  }

  /**
   * The filters the index check runs on {@code column} ({@code id} is int64, every other column int32), with
   * values drawn from {@code state}: equality on a present value and on an absent one (within the values'
   * range where there is room), a range from a present value, IN of two present values and an absent one, IS
   * NULL, and last {@code IS NULL OR >= MIN}, which every row matches. The first present value is, where there
   * is one, a value that a row holds now and did not hold in {@code built} (the state where the index was
   * created): the rows a stale index would miss.
   */
  private List<IndexFilter> filtersOn(String column, ModelState state, ModelState built) {
    boolean isId = column.equals("id");
    TreeSet<Long> present = new TreeSet<>();
    TreeSet<Long> changed = new TreeSet<>();
    state.rows().forEach((id, row) -> {
      Object value = row.get(column);
      if (value != null) {
        present.add(((Number) value).longValue());
        Map<String, Object> before = built == null ? null : built.rows().get(id);
        if (before == null || !value.equals(before.get(column))) {
          changed.add(((Number) value).longValue());
        }
      }
    });
    List<Long> values = List.copyOf(present);
    List<Long> fresh = changed.isEmpty() ? values : List.copyOf(changed);
    long some = fresh.isEmpty() ? 0 : fresh.get(indexSampler.nextInt(fresh.size()));
    long other = values.isEmpty() ? 1 : values.get(indexSampler.nextInt(values.size()));
    long absent = some;
    while (present.contains(absent)) {
      absent++;
    }
    long span = isId ? 12 : 250;
    Function<Long, Object> literal = v -> isId ? (Object) v : (Object) (int) (long) v;
    long low = some;
    long absentValue = absent;
    return List.of(
        new IndexFilter(Predicate.eq(column, literal.apply(some)), v -> v != null && number(v) == some),
        new IndexFilter(Predicate.eq(column, literal.apply(absent)), v -> v != null && number(v) == absentValue),
        new IndexFilter(Predicate.and(Predicate.ge(column, literal.apply(low)),
            Predicate.lt(column, literal.apply(low + span))), v -> v != null && number(v) >= low
                && number(v) < low + span),
        new IndexFilter(Predicate.in(column, literal.apply(some), literal.apply(other), literal.apply(absent)),
            v -> v != null && (number(v) == some || number(v) == other || number(v) == absentValue)),
        new IndexFilter(Predicate.isNull(column), v -> v == null),
        new IndexFilter(Predicate.or(Predicate.isNull(column),
            Predicate.ge(column, isId ? (Object) Long.MIN_VALUE : (Object) Integer.MIN_VALUE)), v -> true));
  }

  private static long number(Object value) {
    return ((Number) value).longValue();
  }

  private AssertionError failure(Invariant broken, String message) {
    return failure("[" + broken + "] " + message);
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
        writes.add(ds.columns().writeFragment(f.id(), batches, schema));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    note(writes.size() + " fragments");
    ds.columns().commit(writes);
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

  private static final class RowScannedTwice extends RuntimeException {
    RowScannedTwice(String message) {
      super(message);
    }
  }

  /** Every live row of {@code ds}'s version, as a model state (a row scanned twice throws RowScannedTwice). */
  private static ModelState scan(Dataset ds) {
    return scan(ds, Predicate.TRUE, true, null);
  }

  /**
   * The rows of {@code ds}'s version that {@code filter} selects, with or without the indices, recording into
   * {@code metrics} (may be null), as a model state (a row scanned twice throws RowScannedTwice).
   */
  private static ModelState scan(Dataset ds, Predicate filter, boolean useIndices, ScanMetrics metrics) {
    List<String> cols = names(ds);
    TreeMap<Long, Map<String, Object>> rows = new TreeMap<>();
    try (ArrowReader reader = ds.newScan().filter(filter).useIndices(useIndices).metrics(metrics).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          Map<String, Object> row = new HashMap<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.put(v.getField().getName(), v.getObject(i));
          }
          Long id = (Long) row.get("id");
          if (rows.put(id, row) != null) {
            throw new RowScannedTwice("id " + id + " scanned twice at v" + ds.version());
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
