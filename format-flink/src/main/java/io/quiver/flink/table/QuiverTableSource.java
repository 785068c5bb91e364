package io.quiver.flink.table;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.flink.source.ColumnPaths;
import io.quiver.flink.source.QuiverSource;
import io.quiver.predicate.Predicate;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A Quiver table read by Flink SQL: a bounded scan of one version ({@code scan.version}, {@code scan.tag},
 * {@code scan.timestamp}, or the latest), or, with {@code scan.mode = follow}, that version and then the rows of
 * every later append (the FLIP-27 {@link QuiverSource}). The columns the query needs (struct members too), the
 * filters Quiver can evaluate ({@link SqlFilters}) and a limit are pushed into Quiver's scan, where the
 * statistics prune fragments; a pushed filter is exact, so the planner does not evaluate it again. As the
 * right side of a lookup join it serves point reads ({@link QuiverLookupFunction}).
 */
final class QuiverTableSource
    implements ScanTableSource, LookupTableSource, SupportsProjectionPushDown, SupportsFilterPushDown,
    SupportsLimitPushDown {

  private final QuiverDynamicTableFactory.TableSpec spec;
  /** Paths into the declared row of the fields produced; null: every declared column. */
  private int[][] projection;
  private final List<Predicate> filters = new ArrayList<>();
  private long limit = -1;

  QuiverTableSource(QuiverDynamicTableFactory.TableSpec spec) {
    this.spec = spec;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return changelog() ? ChangelogMode.all() : ChangelogMode.insertOnly();
  }

  private boolean changelog() {
    return spec.options().get(QuiverTableOptions.SCAN_MODE) == QuiverTableOptions.ScanMode.CHANGELOG;
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    QuiverSource source = source(builder()).build();
    return SourceProvider.of(source);
  }

  /** The source with the pushed columns, filters and limit, and the version the options select. */
  private QuiverSource.Builder source(QuiverSource.Builder b) {
    b.columns(columnPaths()).flattenColumns();
    if (!filters.isEmpty()) {
      b.filter(Predicate.and(filters));
    }
    if (limit >= 0) {
      b.limit(limit);
    }
    return b;
  }

  private QuiverSource.Builder builder() {
    ReadableConfig o = spec.options();
    QuiverSource.Builder b = QuiverSource.forRowData(spec.uri()).storeOptions(spec.storeOptions());
    Versions.select(spec.table(), o).apply(b);
    if (o.get(QuiverTableOptions.SCAN_MODE) != QuiverTableOptions.ScanMode.SNAPSHOT) {
      b.continuous(o.get(QuiverTableOptions.SCAN_FOLLOW_INTERVAL));
    }
    if (changelog()) {
      b.changelog();
    }
    o.getOptional(QuiverTableOptions.SCAN_SPLIT_SIZE).map(MemorySize::getBytes).ifPresent(b::targetSplitBytes);
    return b;
  }

  /** The Quiver column paths of the produced fields, in order. */
  List<String> columnPaths() {
    RowType declared = spec.tableTypes();
    List<String> paths = new ArrayList<>();
    if (projection == null) {
      declared.getFieldNames().forEach(n -> paths.add(ColumnPaths.join(List.of(n))));
      return paths;
    }
    for (int[] path : projection) {
      List<String> names = new ArrayList<>();
      LogicalType at = declared;
      for (int index : path) {
        RowType row = (RowType) at;
        names.add(row.getFieldNames().get(index));
        at = row.getTypeAt(index);
      }
      paths.add(ColumnPaths.join(names));
    }
    return paths;
  }

  @Override
  public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
    RowType produced = projectedType();
    List<String> keyColumns = new ArrayList<>();
    List<LogicalType> keyTypes = new ArrayList<>();
    List<String> paths = columnPaths();
    for (int[] key : context.getKeys()) {
      if (key.length != 1) {
        throw new ValidationException("a lookup join on Quiver table " + spec.table() + " can join on top-level"
            + " columns only; the join names a struct member (" + produced.getFieldNames().get(key[0]) + ".…)");
      }
      keyColumns.add(paths.get(key[0]));
      keyTypes.add(produced.getTypeAt(key[0]));
    }
    QuiverLookupFunction.checkKeyTypes(spec.table(), keyColumns, keyTypes);
    // Built to check the columns and pin the version; the lookup reads that version when an option chose it,
    // and otherwise follows the latest.
    QuiverSource pinned = builder().columns(paths).build();
    ReadableConfig o = spec.options();
    boolean follow = o.getOptional(QuiverTableOptions.SCAN_VERSION).isEmpty()
        && o.getOptional(QuiverTableOptions.SCAN_TAG).isEmpty()
        && o.getOptional(QuiverTableOptions.SCAN_TIMESTAMP).isEmpty();
    return LookupFunctionProvider.of(new QuiverLookupFunction(spec.uri(), spec.storeOptions(), paths, keyColumns,
        pinned.version(), follow, o.get(QuiverTableOptions.LOOKUP_CACHE_MAX_ROWS),
        o.get(QuiverTableOptions.LOOKUP_CACHE_TTL), o.get(QuiverTableOptions.LOOKUP_RELOAD_INTERVAL)));
  }

  private RowType projectedType() {
    RowType declared = spec.tableTypes();
    if (projection == null) {
      return declared;
    }
    List<RowType.RowField> fields = new ArrayList<>();
    for (int[] path : projection) {
      LogicalType at = declared;
      String name = null;
      for (int index : path) {
        RowType row = (RowType) at;
        name = name == null ? row.getFieldNames().get(index) : name + "_" + row.getFieldNames().get(index);
        at = row.getTypeAt(index);
      }
      fields.add(new RowType.RowField(name, at));
    }
    return new RowType(false, fields);
  }

  @Override
  public boolean supportsNestedProjection() {
    return true;
  }

  @Override
  public void applyProjection(int[][] projectedFields, DataType producedDataType) {
    this.projection = projectedFields;
  }

  @Override
  public Result applyFilters(List<ResolvedExpression> expressions) {
    List<ResolvedExpression> accepted = new ArrayList<>();
    List<ResolvedExpression> remaining = new ArrayList<>();
    if (changelog()) {
      return Result.of(accepted, expressions); // an update can move a row into or out of a filter: Flink filters
    }
    try (Dataset ds = Dataset.open(spec.uri(), spec.datasetOptions())) {
      for (ResolvedExpression e : expressions) {
        Optional<Predicate> p = SqlFilters.convert(e, spec.tableTypes());
        if (p.isPresent() && fits(ds, p.get())) {
          filters.add(p.get());
          accepted.add(e);
        } else {
          remaining.add(e);
        }
      }
    }
    // Quiver's filter is exact: what it accepted, the planner need not evaluate again.
    return Result.of(accepted, remaining);
  }

  private static boolean fits(Dataset ds, Predicate p) {
    try {
      ds.newScan().filter(p);
      return true;
    } catch (InvalidArgumentException e) {
      return false; // a literal Quiver cannot compare with the column: the planner evaluates it
    }
  }

  @Override
  public void applyLimit(long rows) {
    this.limit = rows;
  }

  @Override
  public DynamicTableSource copy() {
    QuiverTableSource copy = new QuiverTableSource(spec);
    copy.projection = projection;
    copy.filters.addAll(filters);
    copy.limit = limit;
    return copy;
  }

  @Override
  public String asSummaryString() {
    StringBuilder sb = new StringBuilder("Quiver(").append(spec.uri());
    if (!filters.isEmpty()) {
      sb.append(", filter=[").append(Predicate.and(filters)).append(']');
    }
    if (limit >= 0) {
      sb.append(", limit=").append(limit);
    }
    return sb.append(')').toString();
  }

  /** Which version a scan reads: at most one of {@code scan.version}, {@code scan.tag}, {@code scan.timestamp}. */
  static final class Versions {
    private Versions() {}

    interface Choice {
      void apply(QuiverSource.Builder b);
    }

    static Choice select(String table, ReadableConfig o) {
      Optional<Long> version = o.getOptional(QuiverTableOptions.SCAN_VERSION);
      Optional<String> tag = o.getOptional(QuiverTableOptions.SCAN_TAG);
      Optional<String> timestamp = o.getOptional(QuiverTableOptions.SCAN_TIMESTAMP);
      int set = (version.isPresent() ? 1 : 0) + (tag.isPresent() ? 1 : 0) + (timestamp.isPresent() ? 1 : 0);
      if (set > 1) {
        throw new ValidationException("Flink table " + table + " sets more than one of 'scan.version', 'scan.tag'"
            + " and 'scan.timestamp'; set one of them (or none, to read the latest version)");
      }
      if (version.isPresent()) {
        return b -> b.version(version.get());
      }
      if (tag.isPresent()) {
        return b -> b.tag(tag.get());
      }
      if (timestamp.isPresent()) {
        Instant at = instant(table, timestamp.get());
        return b -> b.asOf(at);
      }
      return b -> { };
    }

    /** ISO-8601 instant, {@code yyyy-MM-dd HH:mm:ss[.fff]} (UTC), or epoch milliseconds. */
    static Instant instant(String table, String text) {
      String t = text.trim();
      try {
        if (t.matches("-?\\d+")) {
          return Instant.ofEpochMilli(Long.parseLong(t));
        }
        if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")) {
          return DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(t, Instant::from);
        }
        return LocalDateTime.parse(t.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException | NumberFormatException e) {
        throw new ValidationException("Flink table " + table + ": 'scan.timestamp' = '" + text + "' is not an"
            + " instant; write it as ISO-8601 ('2026-12-05T10:00:00Z'), as 'yyyy-MM-dd HH:mm:ss' in UTC, or as"
            + " epoch milliseconds");
      }
    }
  }
}
