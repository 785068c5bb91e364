package io.quiver.flink.sink;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.RowDelta;
import io.quiver.dataset.RowDeltaResult;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.flink.types.ArrowRowDataReader;
import io.quiver.flink.types.FlinkLiterals;
import io.quiver.predicate.Predicate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's {@link UpsertCommittable} as ONE row delta on the latest version: every live row
 * whose primary key the checkpoint changed is deleted, and the checkpoint's new rows (one per upserted key)
 * are added — so after the commit each changed key has exactly one row, or none, whatever rows it had. The
 * rows to delete are found by a scan of the key columns filtered by the changed keys' values ({@code IN} per key
 * column) — pruned by the column statistics and, where a key column has a scalar index, read only at the rows the
 * index lists in the fragments it covers — and matched exactly. The delta is bound to that version (serializable: a concurrent commit
 * that may add rows with those keys, or changes rows it deletes, makes it retry on the new latest version, up
 * to {@value #ATTEMPTS} times here, then later through Flink's retry). Exactly once through the application
 * sequence, as every checkpoint committer ({@link CheckpointCommitter}).
 */
final class UpsertCommitter extends CheckpointCommitter<UpsertCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(UpsertCommitter.class);
  static final int ATTEMPTS = 5;
  /** At most this many distinct values of a string or binary key column go into the pruning filter. */
  static final int MAX_FILTER_VALUES = 10_000;

  private final UpsertKeys keys;
  private final BeforeCommit beforeCommit;
  /** What the key scans of this committer's commits read (every attempt), for the log and tests. */
  private final ScanMetrics keyScans = new ScanMetrics();

  /** Runs between an attempt's scan and its commit: where tests put a concurrent writer's commit. */
  @FunctionalInterface
  interface BeforeCommit {
    void run(int attempt);
  }

  UpsertCommitter(String uri, DatasetOptions options, UpsertKeys keys) {
    this(uri, options, keys, attempt -> { });
  }

  UpsertCommitter(String uri, DatasetOptions options, UpsertKeys keys, BeforeCommit beforeCommit) {
    super(uri, options);
    this.keys = keys;
    this.beforeCommit = beforeCommit;
  }

  /** What the key scans of this committer's commits have read so far. */
  ScanMetrics keyScans() {
    return keyScans;
  }

  @Override
  long checkpointId(UpsertCommittable c) {
    return c.checkpointId();
  }

  @Override
  String applicationId(UpsertCommittable c) {
    return c.applicationId();
  }

  @Override
  List<WriteResult> results(UpsertCommittable c) {
    return c.rowResults();
  }

  @Override
  boolean changesNothing(UpsertCommittable c) {
    return c.upserts() + c.deletes() == 0;
  }

  @Override
  long rows(UpsertCommittable c) {
    return c.upserts();
  }

  @Override
  long commitNew(Dataset table, UpsertCommittable c, CommitOptions sequence) {
    try (BufferAllocator allocator = new RootAllocator()) {
      ChangedKeys changed = changedKeys(c, allocator);
      RetryableConflictException last = null;
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        ScanMetrics scan = new ScanMetrics();
        try (Dataset at = table.checkoutLatest()) {
          RowDeltaResult r;
          try {
            r = commitOn(at, c, changed, sequence, allocator, attempt, scan);
          } finally {
            keyScans.add(scan);
          }
          LOG.info("committed {} to {} as version {}: {} rows deleted, {} added{}; the key scan read {} rows of {}"
              + " fragments ({} answered by an index, {} read whole although a key column has one)", c, uri,
              r.version(), r.deletedRows(), r.addedRows(), r.alreadyCommitted() ? " (found committed)" : "",
              scan.rowsReturned(), scan.fragmentsConsidered() - scan.fragmentsPruned(),
              scan.fragmentsAnsweredByIndex(), scan.fragmentsScannedWithoutIndex());
          return r.version();
        } catch (RetryableConflictException e) {
          last = e;
          LOG.info("upsert of {} to {} met a concurrent commit (attempt {} of {}): {}", c, uri, attempt, ATTEMPTS,
              e.getMessage());
        }
      }
      throw last;
    }
  }

  private RowDeltaResult commitOn(Dataset at, UpsertCommittable c, ChangedKeys changed, CommitOptions sequence,
      BufferAllocator allocator, int attempt, ScanMetrics scan) {
    List<Long> addresses = new ArrayList<>();
    java.util.Map<String, Long> addressOfKey = new java.util.HashMap<>();
    Set<Long> fragments = new TreeSet<>();
    try (ArrowReader reader = at.newScan().columns(keys.columns()).filter(changed.filter()).withRowAddress(true)
        .allocator(allocator).metrics(scan).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        List<FieldVector> keyVectors = new ArrayList<>();
        for (String k : keys.columns()) {
          keyVectors.add(batch.getVector(k));
        }
        BaseIntVector address = (BaseIntVector) batch.getVector(RowAddress.COLUMN); // uint64
        ArrowRowDataReader rows = ArrowRowDataReader.of(new VectorSchemaRoot(keyVectors));
        for (int i = 0; i < batch.getRowCount(); i++) {
          String key = keys.ofKeyRow(rows.read(i));
          if (changed.keys().contains(key)) {
            long a = address.getValueAsLong(i);
            addresses.add(a);
            addressOfKey.putIfAbsent(key, a);
            fragments.add(RowAddress.fragmentId(a));
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("could not read the keys of " + uri + " to upsert " + c, e);
    }
    RowDelta delta = at.distributed().newRowDelta(at.version())
        .deleteRows(addresses.stream().mapToLong(Long::longValue).toArray());
    if (at.manifest().hasRowIds() && c.results().stream().allMatch(UpsertResult::rowKeysFirst)) {
      // Each upserted row keeps the row id of the row of its key it replaces (an update, not a delete and an
      // insert): the result's keys list the upserted ones first, in the order of its rows.
      Set<Long> used = new java.util.HashSet<>();
      for (UpsertResult r : c.results()) {
        if (r.rows().isEmpty()) {
          continue;
        }
        if (r.rows().get().rows() != r.upserts()) {
          delta.addRows(List.of(r.rows().get())); // not one row per upserted key: new ids, never a wrong pairing
          continue;
        }
        long[] replaced = new long[(int) r.upserts()];
        int[] next = {0};
        UpsertBatches.decode(r.keys(), allocator, batch -> {
          ArrowRowDataReader keyRows = ArrowRowDataReader.of(batch);
          for (int i = 0; i < keyRows.rowCount() && next[0] < replaced.length; i++) {
            long old = addressOfKey.getOrDefault(keys.ofKeyRow(keyRows.read(i)), -1L);
            replaced[next[0]++] = old >= 0 && used.add(old) ? old : -1L; // one new row per replaced row
          }
        });
        delta.addRows(r.rows().get(), replaced);
      }
    } else {
      delta.addRows(c.rowResults());
    }
    delta.readFragments(fragments)
        .conflictFilter(changed.filter())
        .isolation(RowDelta.Isolation.SERIALIZABLE)
        .description("flink-upsert checkpoint " + c.checkpointId());
    beforeCommit.run(attempt);
    return delta.commit(sequence);
  }

  /** The keys a checkpoint changed, and a filter every row holding one of them passes. */
  record ChangedKeys(Set<String> keys, Predicate filter) {}

  private ChangedKeys changedKeys(UpsertCommittable c, BufferAllocator allocator) {
    Set<String> changed = new HashSet<>();
    List<Set<Object>> values = new ArrayList<>();
    keys.columns().forEach(k -> values.add(new LinkedHashSet<>()));
    for (UpsertResult r : c.results()) {
      UpsertBatches.decode(r.keys(), allocator, batch -> {
        ArrowRowDataReader rows = ArrowRowDataReader.of(batch);
        for (int i = 0; i < rows.rowCount(); i++) {
          RowData key = rows.read(i);
          changed.add(keys.ofKeyRow(key));
          for (int k = 0; k < values.size(); k++) {
            Object v = RowData.createFieldGetter(keys.type(k), k).getFieldOrNull(key);
            if (v != null && values.get(k) != null) {
              FlinkLiterals.toQuiver(v, keys.type(k)).ifPresent(values.get(k)::add);
            }
          }
        }
      });
    }
    List<Predicate> filter = new ArrayList<>();
    for (int k = 0; k < values.size(); k++) {
      Set<Object> vs = values.get(k);
      LogicalTypeRoot root = keys.type(k).getTypeRoot();
      boolean strings = root == LogicalTypeRoot.CHAR || root == LogicalTypeRoot.VARCHAR
          || root == LogicalTypeRoot.BINARY || root == LogicalTypeRoot.VARBINARY;
      if (vs.isEmpty() || !FlinkLiterals.hasLiteral(keys.type(k)) || (strings && vs.size() > MAX_FILTER_VALUES)) {
        continue; // no pruning by this column; the exact match below still decides
      }
      filter.add(Predicate.in(keys.columns().get(k), new ArrayList<>(vs)));
    }
    return new ChangedKeys(changed, filter.isEmpty() ? Predicate.TRUE : Predicate.and(filter));
  }
}
