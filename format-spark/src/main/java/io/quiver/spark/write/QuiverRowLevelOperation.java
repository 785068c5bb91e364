package io.quiver.spark.write;

import io.quiver.spark.QuiverTable;
import io.quiver.spark.read.QuiverScan;
import io.quiver.spark.read.QuiverScanBuilder;
import java.util.Locale;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Spark's {@code MERGE INTO}, {@code UPDATE} and row-level {@code DELETE} on a Quiver table, as position deltas
 * keyed by {@code _rowaddr}: Spark scans the table at its loaded version with the row address, and the tasks
 * hand the rows to delete (by address) and to write (updated rows' new versions, inserted rows) to a {@link
 * QuiverDeltaWrite}, which the driver commits as ONE Quiver row delta bound to that version.
 */
public final class QuiverRowLevelOperation implements SupportsDelta {
  private final QuiverTable table;
  private final Command command;
  private volatile QuiverScan scan;

  public QuiverRowLevelOperation(QuiverTable table, Command command) {
    this.table = table;
    this.command = command;
  }

  @Override
  public Command command() {
    return command;
  }

  @Override
  public String description() {
    return "Quiver " + command.name().toLowerCase(Locale.ROOT) + " of " + table.name() + " at version "
        + table.quiverVersion();
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new QuiverScanBuilder(table, options, built -> scan = built);
  }

  @Override
  public NamedReference[] rowId() {
    return new NamedReference[] {Expressions.column(QuiverTable.ROW_ADDRESS)};
  }

  @Override
  public NamedReference[] requiredMetadataAttributes() {
    return new NamedReference[0];
  }

  @Override
  public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new DeltaWriteBuilder() {
      @Override
      public QuiverDeltaWrite build() {
        return new QuiverDeltaWrite(table.ref(), table.quiverVersion(), table.arrowSchema(),
            WriteSizes.from(info.options()), command, info.queryId(), scan);
      }
    };
  }

  @Override
  public String toString() {
    return description();
  }
}
