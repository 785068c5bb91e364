package io.quiver.internal.read;

import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.predicate.StatsPruner;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a scan reads, resolved against one version's schema: the projected fields, an exact row filter,
 * whether to add {@code _rowaddr}, the most rows per batch and the most rows in all. Immutable; the read
 * path ({@link ScanReader}) and the engines that scan through it (delete, update, compaction) take one
 * instead of the public {@code Scanner}.
 *
 * <p>The filter is bound when the spec is built, so an unknown column or a literal of the wrong type is
 * reported before anything is read. The fields it reads that the projection does not are read too
 * ({@link #readSchema()}) and dropped from the output.
 */
public final class ScanSpec {
  /** Default most rows per returned batch. */
  public static final int DEFAULT_BATCH_SIZE = 8192;

  /** {@link #limit()} when the scan returns every matching row. */
  public static final long NO_LIMIT = Long.MAX_VALUE;

  private final Schema table;
  private final Schema projected;
  private final Schema read;
  private final Optional<Predicate> filter;
  private final PredicateEvaluator evaluator;
  private final boolean withRowAddress;
  private final int batchSize;
  private final long limit;
  /** Null when there is no filter. */
  private final StatsPruner pruner;
  /** Whether the scan adds the row lineage columns (stable row ids, format 1.4). */
  private boolean withRowLineage;

  private ScanSpec(Schema table, Schema projected, Schema read, Optional<Predicate> filter,
      PredicateEvaluator evaluator, boolean withRowAddress, int batchSize, long limit) {
    this.table = table;
    this.projected = projected;
    this.read = read;
    this.filter = filter;
    this.evaluator = evaluator;
    this.withRowAddress = withRowAddress;
    this.batchSize = batchSize;
    this.limit = limit;
    this.pruner = filter.map(f -> StatsPruner.of(f, table)).orElse(null);
  }

  /** Every row of the projection, in batches of at most {@code batchSize} rows. */
  public static ScanSpec of(Schema table, Schema projected, boolean withRowAddress, int batchSize) {
    return of(table, projected, null, withRowAddress, batchSize, NO_LIMIT);
  }

  /**
   * @param table the schema of the version scanned
   * @param projected the output fields, a projection of {@code table}
   * @param filter rows returned are those for which it is true (null or {@link Predicate#TRUE}: every row)
   * @param limit most rows returned in all ({@link #NO_LIMIT} for every row)
   * @throws InvalidArgumentException if the filter names a column the table does not have, or one inside
   *     a list or map, or compares a column with a literal of another type
   */
  public static ScanSpec of(Schema table, Schema projected, Predicate filter, boolean withRowAddress,
      int batchSize, long limit) {
    if (batchSize < 1) {
      throw new InvalidArgumentException("batch size must be >= 1, got " + batchSize);
    }
    if (limit < 0) {
      throw new InvalidArgumentException("limit must be >= 0, got " + limit);
    }
    if (filter == null || filter instanceof Predicate.True) {
      return new ScanSpec(table, projected, projected, Optional.empty(), null, withRowAddress, batchSize, limit);
    }
    if (filter.columns().contains(RowAddress.COLUMN)) {
      throw new InvalidArgumentException(
          "filter " + filter + " names " + RowAddress.COLUMN + ", which a filter cannot read (it is computed, not"
              + " stored); read rows by address with Dataset.take, or filter on the table's columns");
    }
    Set<Integer> filterIds;
    try {
      filterIds = filter.fieldIds(table);
    } catch (InvalidArgumentException e) {
      throw new InvalidArgumentException("filter " + filter + ": " + e.getMessage());
    }
    Schema read = union(table, projected, filterIds);
    PredicateEvaluator evaluator;
    try {
      evaluator = PredicateEvaluator.bind(filter, read.toArrow());
    } catch (InvalidArgumentException e) {
      throw new InvalidArgumentException(
          "filter " + filter + ": " + e.getMessage() + "; write the literal as the column's type (Scanner.filter"
              + " takes the same literals as Dataset.delete and Dataset.update)");
    }
    return new ScanSpec(table, projected, read, Optional.of(filter), evaluator, withRowAddress, batchSize, limit);
  }

  /**
   * The projection widened by the filter's fields: the projected top-level fields first, in their order,
   * then the other fields the filter reads, in the order the filter names them.
   */
  private static Schema union(Schema table, Schema projected, Set<Integer> filterIds) {
    Set<Integer> ids = new LinkedHashSet<>();
    collectLeaves(projected.fields(), ids);
    List<Field> filterLeaves = new ArrayList<>();
    for (int id : filterIds) {
      Field f = table.field(id);
      if (f.isAtomic() || f.children().isEmpty()) {
        filterLeaves.add(f);
      }
    }
    filterLeaves.forEach(f -> ids.add(f.id()));
    return Projection.byIds(table, List.copyOf(ids));
  }

  /** Atomic fields (and childless structs), preorder: what selects exactly these fields in a projection. */
  private static void collectLeaves(List<Field> level, Set<Integer> out) {
    for (Field f : level) {
      if (f.isAtomic() || f.children().isEmpty()) {
        out.add(f.id());
      } else {
        collectLeaves(f.children(), out);
      }
    }
  }

  /**
   * This spec with the row lineage columns ({@code _rowid}, {@code _row_created_at_version}, {@code
   * _row_last_updated_at_version}) after the projection (and {@code _rowaddr}) when {@code value}.
   */
  public ScanSpec withRowLineage(boolean value) {
    ScanSpec s = new ScanSpec(table, projected, read, filter, evaluator, withRowAddress, batchSize, limit);
    s.withRowLineage = value;
    return s;
  }

  public boolean withRowLineage() {
    return withRowLineage;
  }

  /** This spec with another limit. */
  public ScanSpec withLimit(long value) {
    if (value < 0) {
      throw new InvalidArgumentException("limit must be >= 0, got " + value);
    }
    ScanSpec s = new ScanSpec(table, projected, read, filter, evaluator, withRowAddress, batchSize, value);
    s.withRowLineage = withRowLineage;
    return s;
  }

  /** The schema of the version scanned. */
  public Schema table() {
    return table;
  }

  /** The output fields (without {@code _rowaddr}). */
  public Schema projected() {
    return projected;
  }

  /** The fields read: the projection plus the fields only the filter reads. */
  public Schema readSchema() {
    return read;
  }

  /** The exact row filter, if any. */
  public Optional<Predicate> filter() {
    return filter;
  }

  /**
   * False only when the column statistics show that no row of {@code fragment} can match the filter
   * (docs/scan-planning.md, "Pruning"); always true without a filter.
   */
  public boolean mayMatch(Fragment fragment) {
    return pruner == null || pruner.mayMatch(FragmentBounds.lookup(fragment, table));
  }

  /**
   * False only when the bounds a segmented root records for {@code segment} show that no row of any of its
   * fragments can match the filter: the planner then never reads the segment.
   */
  public boolean mayMatch(io.quiver.manifest.Segment segment) {
    return pruner == null || pruner.mayMatch(segment::boundsOf);
  }

  /** The filter's pruner, or null when there is none. */
  StatsPruner pruner() {
    return pruner;
  }

  /** The bounds of every atomic field read over {@code fragment} that are not unknown, in read order. */
  public List<FieldBounds> boundsOf(Fragment fragment) {
    List<FieldBounds> out = new ArrayList<>();
    for (Field f : read.atomicFields()) {
      FieldBounds b = FragmentBounds.of(fragment, table, f.id());
      if (!b.isUnknown()) {
        out.add(b);
      }
    }
    return out;
  }

  /** The filter bound to {@link #readSchema()}, or null when there is none. */
  PredicateEvaluator evaluator() {
    return evaluator;
  }

  public boolean withRowAddress() {
    return withRowAddress;
  }

  public int batchSize() {
    return batchSize;
  }

  /** Most rows returned in all; {@link #NO_LIMIT} when unlimited. */
  public long limit() {
    return limit;
  }

  /** The field ids of the fields read (projection and filter), for byte estimates. */
  public Set<Integer> readFieldIds() {
    Set<Integer> ids = new LinkedHashSet<>();
    read.allFields().forEach(f -> ids.add(f.id()));
    return ids;
  }

  @Override
  public String toString() {
    return "ScanSpec[" + projected.fields().stream().map(Field::name).toList()
        + filter.map(f -> " WHERE " + f).orElse("") + (withRowAddress ? " +_rowaddr" : "") + ", batch " + batchSize
        + (limit == NO_LIMIT ? "" : ", limit " + limit) + "]";
  }
}
