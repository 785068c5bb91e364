package io.quiver.flink.table;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.ScanMetrics;
import io.quiver.flink.source.FlatRows;
import io.quiver.flink.source.SourceMetrics;
import io.quiver.flink.types.ArrowRowDataReader;
import io.quiver.flink.types.FlinkLiterals;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The right side of a lookup join ({@code JOIN t FOR SYSTEM_TIME AS OF s.proc_time ON t.k = s.k}): each key
 * is a point read of the table — a scan filtered by the key, so the column statistics skip every fragment
 * that cannot hold it, and a scalar index on a key column reads only the rows it lists in the fragments it
 * covers (docs/scan-planning.md, "Key lookups") — whose rows are cached per subtask (up to {@code lookup.cache.max-rows} keys, each
 * for {@code lookup.cache.ttl}). Unless a version was chosen ({@code scan.version}, {@code scan.tag}, {@code
 * scan.timestamp}), every {@code lookup.reload-interval} the function looks for a newer version of the table;
 * when there is one it reads that version from then on and empties the cache, so a join never serves rows of
 * a version older than the one it last saw for longer than that interval. The point reads' scan counters are
 * the function's metrics ({@code quiverFragmentsAnsweredByIndex}, {@code quiverFragmentsScannedWithoutIndex},
 * {@code quiverDataFilesOpened}, … as {@link SourceMetrics} names them).
 *
 * <p>Public because Flink requires functions to be; made by the connector only ({@code 'connector' = 'quiver'}).
 */
public final class QuiverLookupFunction extends LookupFunction {
  private static final long serialVersionUID = 1L;

  private final String uri;
  private final HashMap<String, String> storeOptions;
  private final ArrayList<String> columns;
  private final ArrayList<String> keyColumns;
  private final long version;
  private final boolean follow;
  private final long cacheRows;
  private final Duration ttl;
  private final Duration reloadInterval;

  private transient BufferAllocator allocator;
  private transient Dataset dataset;
  private transient Cache<List<Object>, List<RowData>> cache;
  private transient RowType readType;
  private transient LogicalType[] keyTypes;
  private transient long nextCheckNanos;
  private transient ScanMetrics metrics;

  QuiverLookupFunction(String uri, Map<String, String> storeOptions, List<String> columns, List<String> keyColumns,
      long version, boolean follow, long cacheRows, Duration ttl, Duration reloadInterval) {
    this.uri = uri;
    this.storeOptions = new HashMap<>(storeOptions);
    this.columns = new ArrayList<>(columns);
    this.keyColumns = new ArrayList<>(keyColumns);
    this.version = version;
    this.follow = follow;
    this.cacheRows = cacheRows;
    this.ttl = ttl;
    this.reloadInterval = reloadInterval;
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    allocator = new RootAllocator();
    DatasetOptions options = DatasetOptions.builder().storeOptions(Map.copyOf(storeOptions)).allocator(allocator)
        .build();
    dataset = version < 0 ? Dataset.open(uri, options) : Dataset.open(uri, options, version);
    if (follow) {
      moveToLatest();
    }
    cache = cacheRows <= 0 ? null : Caffeine.newBuilder().maximumSize(cacheRows).expireAfterWrite(ttl).build();
    nextCheckNanos = System.nanoTime() + reloadInterval.toNanos();
    metrics = new ScanMetrics();
    SourceMetrics.register(context.getMetricGroup(), metrics);
  }

  /** What the point reads since {@link #open} did (cache hits read nothing). */
  ScanMetrics metrics() {
    return metrics;
  }

  private void moveToLatest() {
    long latest = dataset.latestVersion();
    if (latest != dataset.version()) {
      Dataset next = dataset.checkout(latest);
      dataset.close();
      dataset = next;
      if (cache != null) {
        cache.invalidateAll();
      }
    }
    readType = null;
  }

  @Override
  public Collection<RowData> lookup(RowData keyRow) throws IOException {
    if (follow && System.nanoTime() - nextCheckNanos >= 0) {
      moveToLatest();
      nextCheckNanos = System.nanoTime() + reloadInterval.toNanos();
    }
    if (readType == null) {
      resolveTypes();
    }
    List<Object> key = new ArrayList<>(keyColumns.size());
    for (int i = 0; i < keyColumns.size(); i++) {
      Object v = RowData.createFieldGetter(keyTypes[i], i).getFieldOrNull(keyRow);
      if (v == null) {
        return List.of(); // a null key equals nothing
      }
      key.add(FlinkLiterals.toQuiver(v, keyTypes[i]).orElseThrow());
    }
    if (cache == null) {
      return read(key);
    }
    List<RowData> cached = cache.getIfPresent(key);
    if (cached != null) {
      return cached;
    }
    List<RowData> rows = read(key);
    cache.put(key, rows);
    return rows;
  }

  private void resolveTypes() {
    readType = io.quiver.flink.types.FlinkTypes.toRowType(dataset.newScan().columns(columns).projectedSchema());
    FlatRows flat = FlatRows.of(readType, columns);
    keyTypes = new LogicalType[keyColumns.size()];
    for (int i = 0; i < keyColumns.size(); i++) {
      int at = columns.indexOf(keyColumns.get(i));
      keyTypes[i] = flat.producedType().getTypeAt(at);
    }
  }

  private List<RowData> read(List<Object> key) throws IOException {
    List<Predicate> eq = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      eq.add(Predicate.eq(keyColumns.get(i), key.get(i)));
    }
    FlatRows flat = FlatRows.of(readType, columns);
    List<RowData> out = new ArrayList<>();
    try (ArrowReader reader = dataset.newScan().columns(columns).filter(Predicate.and(eq)).allocator(allocator)
        .metrics(metrics).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        for (RowData row : ArrowRowDataReader.of(batch).readFrom(0)) {
          out.add(flat.apply(row));
        }
      }
    }
    return List.copyOf(out);
  }

  /** Throws when a lookup on columns of these types cannot be served (checked when the plan is made). */
  static void checkKeyTypes(String table, List<String> names, List<LogicalType> types) {
    for (int i = 0; i < types.size(); i++) {
      if (!FlinkLiterals.hasLiteral(types.get(i))) {
        throw new ValidationException("a lookup join on Quiver table " + table + " cannot join on column '"
            + names.get(i) + "' of type " + types.get(i).asSummaryString() + "; join on integer, string, binary,"
            + " boolean, decimal, date or timestamp columns");
      }
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (dataset != null) {
        dataset.close();
      }
    } finally {
      dataset = null;
      if (allocator != null) {
        allocator.close();
        allocator = null;
      }
      super.close();
    }
  }
}
