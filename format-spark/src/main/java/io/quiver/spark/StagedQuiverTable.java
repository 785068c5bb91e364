package io.quiver.spark;

import io.quiver.dataset.Dataset;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * The table of an atomic CREATE / REPLACE TABLE … AS SELECT ({@link QuiverCatalog} is a staging catalog).
 * Its write is ONE Quiver commit: an append into the table the statement created, or, for a replace, an
 * overwrite of the existing table's rows (its history stays, and a failed query leaves it as it was —
 * never dropped first, as Spark's non-staged REPLACE does).
 */
final class StagedQuiverTable implements StagedTable, SupportsWrite {
  private final QuiverTable table;
  private final boolean replace;
  private final boolean created;
  private final Map<String, String> config;
  private final QuiverCatalog catalog;
  private final org.apache.spark.sql.connector.catalog.Identifier ident;

  StagedQuiverTable(QuiverCatalog catalog, org.apache.spark.sql.connector.catalog.Identifier ident, QuiverTable table,
      boolean replace, boolean created, Map<String, String> config) {
    this.catalog = catalog;
    this.ident = ident;
    this.table = table;
    this.replace = replace;
    this.created = created;
    this.config = Map.copyOf(config);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    WriteBuilder b = table.newWriteBuilder(info);
    // A replace publishes exactly the query's rows: the write is an overwrite (one commit), not an append.
    return replace ? ((SupportsTruncate) b).truncate() : b;
  }

  @Override
  public void commitStagedChanges() {
    if (replace && !config.isEmpty()) {
      try (Dataset ds = table.ref().open()) {
        ds.updateConfig(config, Set.of());
      }
    }
  }

  @Override
  public void abortStagedChanges() {
    // A table this statement created (empty, or holding only the failed query's rows) goes; a replaced table
    // keeps every row it had, since its overwrite either committed whole or not at all.
    if (created) {
      catalog.dropTable(ident);
    }
  }

  @Override
  public String name() {
    return table.name();
  }

  @Override
  public StructType schema() {
    return table.schema();
  }

  @Override
  public Map<String, String> properties() {
    return table.properties();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return table.capabilities();
  }
}
