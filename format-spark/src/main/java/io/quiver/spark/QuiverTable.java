package io.quiver.spark;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.RowAddress;
import io.quiver.spark.read.QuiverScanBuilder;
import io.quiver.spark.read.SparkPredicates;
import io.quiver.spark.types.SparkTypes;
import io.quiver.spark.write.QuiverWriteBuilder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One version of a Quiver table as Spark sees it. Loaded on the driver; the version is fixed when the table
 * is loaded (the latest, or the one {@code VERSION AS OF} / {@code TIMESTAMP AS OF} / a tag names), and every
 * scan planned from it reads exactly that version — executors are handed tasks pinned to it, never "the
 * latest".
 */
public final class QuiverTable
    implements SupportsRead, SupportsWrite, SupportsDeleteV2, SupportsMetadataColumns, SupportsRowLevelOperations {
  /** Metadata column: the row's address in its version ({@code fragment id << 32 | offset}). */
  public static final String ROW_ADDRESS = RowAddress.COLUMN;
  /** Metadata column: the id of the fragment holding the row. */
  public static final String FRAGMENT = "_fragment";

  /** The row lineage metadata columns of a table with stable row ids (docs/format.md section 14). */
  public static final List<String> LINEAGE_COLUMNS = List.of(io.quiver.schema.ReservedNames.ROW_ID,
      io.quiver.schema.ReservedNames.ROW_CREATED_AT_VERSION, io.quiver.schema.ReservedNames.ROW_LAST_UPDATED_AT_VERSION);

  private final String name;
  private final TableRef ref;
  private final long version;
  private final boolean latest;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final StructType schema;
  private final Map<String, String> config;

  QuiverTable(String name, TableRef ref, Dataset dataset, boolean latest) {
    this.name = name;
    this.ref = ref;
    this.version = dataset.version();
    this.latest = latest;
    this.arrowSchema = dataset.schema().toArrow();
    this.schema = SparkTypes.toSpark(arrowSchema);
    this.config = new TreeMap<>(dataset.config());
  }

  /** Loads {@code version} of the table {@code ref} names. */
  public static QuiverTable load(String name, TableRef ref, VersionRef version) {
    try (Dataset ds = version.open(ref)) {
      return new QuiverTable(name, ref, ds, version instanceof VersionRef.Latest);
    }
  }

  public TableRef ref() {
    return ref;
  }

  /** The Quiver version this table was loaded at. */
  public long quiverVersion() {
    return version;
  }

  /** The loaded version, as Spark's table version string. */
  @Override
  public String version() {
    return Long.toString(version);
  }

  /** Whether the table was loaded as "the latest" (writes need that; time travel is read-only). */
  public boolean isLatest() {
    return latest;
  }

  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return arrowSchema;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  /** The table's configuration (SHOW TBLPROPERTIES), plus the loaded version as {@code quiver.version}. */
  @Override
  public Map<String, String> properties() {
    Map<String, String> p = new TreeMap<>(config);
    p.put("quiver.version", Long.toString(version));
    p.put("location", ref.uri());
    p.put("provider", "quiver");
    return p;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
        TableCapability.OVERWRITE_BY_FILTER, TableCapability.STREAMING_WRITE);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new QuiverScanBuilder(this, options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new QuiverWriteBuilder(this, info);
  }

  @Override
  public MetadataColumn[] metadataColumns() {
    return new MetadataColumn[] {metadata(ROW_ADDRESS, "the row's address at this version (fragment id << 32 | offset)"),
        metadata(FRAGMENT, "the id of the fragment holding the row"),
        metadata(LINEAGE_COLUMNS.get(0), "the row's stable id (a table with row-ids = true)"),
        metadata(LINEAGE_COLUMNS.get(1), "the version that inserted the row (a table with row-ids = true)"),
        metadata(LINEAGE_COLUMNS.get(2), "the version that last changed the row (a table with row-ids = true)")};
  }

  private static MetadataColumn metadata(String column, String comment) {
    return new MetadataColumn() {
      @Override
      public String name() {
        return column;
      }

      @Override
      public DataType dataType() {
        return DataTypes.LongType;
      }

      @Override
      public boolean isNullable() {
        return false;
      }

      @Override
      public String comment() {
        return comment;
      }
    };
  }

  // ---------------------------------------------------------------- MERGE INTO, UPDATE, row-level DELETE

  /**
   * MERGE INTO, UPDATE and DELETE with a condition Quiver cannot evaluate: a row-level operation committed as
   * one Quiver row delta at this table's version (docs/spark.md).
   */
  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    if (!latest) {
      throw new io.quiver.exceptions.InvalidArgumentException("table " + name + " was loaded at version " + version
          + " for time travel, which is read-only; " + info.command() + " the table without VERSION AS OF");
    }
    return () -> new io.quiver.spark.write.QuiverRowLevelOperation(this, info.command());
  }

  // ---------------------------------------------------------------- DELETE FROM … WHERE

  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    for (Predicate p : predicates) {
      if (SparkPredicates.toQuiver(p, schema).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void deleteWhere(Predicate[] predicates) {
    List<io.quiver.predicate.Predicate> converted = new ArrayList<>();
    for (Predicate p : predicates) {
      Optional<io.quiver.predicate.Predicate> q = SparkPredicates.toQuiver(p, schema);
      converted.add(q.orElseThrow(() -> new io.quiver.exceptions.InvalidArgumentException(
          "DELETE condition " + p + " cannot be evaluated by Quiver; use comparisons, IN, IS NULL, AND, OR, NOT")));
    }
    io.quiver.predicate.Predicate where = converted.isEmpty() ? io.quiver.predicate.Predicate.TRUE
        : converted.size() == 1 ? converted.get(0) : io.quiver.predicate.Predicate.and(converted);
    try (Dataset ds = ref.open()) {
      ds.delete(where);
    }
  }

  @Override
  public String toString() {
    return "QuiverTable[" + name + " at version " + version + "]";
  }
}
