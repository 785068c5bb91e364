package io.quiver.spark.read;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.spark.QuiverTable;
import io.quiver.spark.VersionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds a scan of the one version a {@link QuiverTable} was loaded at: column pruning (top-level columns
 * and struct members), filter pushdown (exact, so a converted predicate is not evaluated again by Spark),
 * and limit pushdown (per task; Spark keeps its global limit).
 *
 * <p>Options: {@code quiver.targetTaskBytes} (split fragments estimated above this into several tasks;
 * default 128 MiB) and {@code quiver.batchSize} (rows per columnar batch; default Quiver's).
 */
public final class QuiverScanBuilder
    implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters, SupportsPushDownLimit {
  /** Option: split fragments whose estimated bytes exceed this into row ranges. */
  public static final String TARGET_TASK_BYTES = "quiver.targetTaskBytes";
  /** Option: most rows per columnar batch. */
  public static final String BATCH_SIZE = "quiver.batchSize";
  static final long DEFAULT_TARGET_TASK_BYTES = 128L << 20;

  private final QuiverTable table;
  private final CaseInsensitiveStringMap options;
  private StructType required;
  private final List<Predicate> pushed = new ArrayList<>();
  private final List<io.quiver.predicate.Predicate> filters = new ArrayList<>();
  private OptionalLong limit = OptionalLong.empty();

  private final java.util.function.Consumer<QuiverScan> onBuild;

  public QuiverScanBuilder(QuiverTable table, CaseInsensitiveStringMap options) {
    this(table, options, scan -> { });
  }

  /** A builder that hands the scan it builds to {@code onBuild} (a row-level operation keeps what it read). */
  public QuiverScanBuilder(QuiverTable table, CaseInsensitiveStringMap options,
      java.util.function.Consumer<QuiverScan> onBuild) {
    this.table = table;
    this.options = options;
    this.required = table.schema();
    this.onBuild = onBuild;
  }

  // ---------------------------------------------------------------- filters

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<Predicate> postScan = new ArrayList<>();
    List<io.quiver.predicate.Predicate> converted = new ArrayList<>();
    List<Predicate> sources = new ArrayList<>();
    for (Predicate p : predicates) {
      Optional<io.quiver.predicate.Predicate> q = SparkPredicates.toQuiver(p, table.schema(), table.arrowSchema());
      if (q.isPresent()) {
        converted.add(q.get());
        sources.add(p);
      } else {
        postScan.add(p);
      }
    }
    if (!converted.isEmpty()) {
      // Quiver checks each literal against the column's stored type; one it refuses is left to Spark.
      try (Dataset ds = pinned()) {
        for (int i = 0; i < converted.size(); i++) {
          try {
            ds.newScan().filter(converted.get(i));
            filters.add(converted.get(i));
            pushed.add(sources.get(i));
          } catch (InvalidArgumentException e) {
            postScan.add(sources.get(i));
          }
        }
      }
    }
    return postScan.toArray(new Predicate[0]);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(new Predicate[0]);
  }

  private Dataset pinned() {
    return new VersionRef.Number(table.quiverVersion()).open(table.ref());
  }

  // ---------------------------------------------------------------- columns

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  // ---------------------------------------------------------------- limit

  @Override
  public boolean pushLimit(int rows) {
    limit = OptionalLong.of(rows);
    return true;
  }

  @Override
  public boolean isPartiallyPushed() {
    return true; // each task applies the limit to its own rows
  }

  // ---------------------------------------------------------------- build

  @Override
  public Scan build() {
    List<String> columns = new ArrayList<>();
    List<StructField> read = new ArrayList<>();
    boolean rowAddress = false;
    boolean rowLineage = false;
    for (StructField f : required.fields()) {
      Optional<StructField> tableField = find(table.schema(), f.name());
      if (tableField.isEmpty()) {
        if (f.name().equals(QuiverTable.ROW_ADDRESS)) {
          rowAddress = true;
        } else if (QuiverTable.LINEAGE_COLUMNS.contains(f.name())) {
          rowLineage = true;
        } else if (!f.name().equals(QuiverTable.FRAGMENT)) {
          throw new InvalidArgumentException("no column '" + f.name() + "' in " + table.name() + "; columns are "
              + List.of(table.schema().fieldNames()));
        }
        read.add(new StructField(f.name(), f.dataType(), false, f.metadata()));
        continue;
      }
      StructField t = tableField.get();
      DataType type = prune(SparkPredicates.quote(t.name()), t.dataType(), f.dataType(), columns);
      read.add(new StructField(t.name(), type, t.nullable(), t.metadata()));
    }
    QuiverScan scan = new QuiverScan(table, new StructType(read.toArray(new StructField[0])), columns,
        io.quiver.predicate.Predicate.and(filters), List.copyOf(pushed), rowAddress, rowLineage, limit,
        longOption(TARGET_TASK_BYTES, DEFAULT_TARGET_TASK_BYTES), (int) longOption(BATCH_SIZE, 0));
    onBuild.accept(scan);
    return scan;
  }

  /**
   * Adds the Quiver paths reading {@code wanted} of a column of {@code full} type and returns the Spark
   * type read: the struct narrowed to the wanted members (recursively), or the whole column for any other
   * type Spark narrowed (members of structs inside lists or maps are not pruned).
   */
  private static DataType prune(String path, DataType full, DataType wanted, List<String> columns) {
    if (full.equals(wanted) || !(full instanceof StructType fs) || !(wanted instanceof StructType ws)) {
      columns.add(path);
      return full;
    }
    List<StructField> kept = new ArrayList<>();
    for (StructField member : fs.fields()) {
      Optional<StructField> w = find(ws, member.name());
      if (w.isPresent()) {
        DataType t = prune(path + "." + SparkPredicates.quote(member.name()), member.dataType(),
            w.get().dataType(), columns);
        kept.add(new StructField(member.name(), t, member.nullable(), member.metadata()));
      }
    }
    if (kept.isEmpty()) {
      columns.add(path);
      return full;
    }
    return new StructType(kept.toArray(new StructField[0]));
  }

  private static Optional<StructField> find(StructType s, String name) {
    for (StructField f : s.fields()) {
      if (f.name().equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  private long longOption(String key, long fallback) {
    String v = options.get(key);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n < 1) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException("option '" + key + "' must be a positive whole number; found '" + v + "'");
    }
  }
}
