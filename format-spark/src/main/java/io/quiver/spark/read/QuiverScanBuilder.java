package io.quiver.spark.read;

import io.quiver.spark.QuiverTable;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** STUB (being written): builds a scan of one loaded version of a Quiver table. */
public final class QuiverScanBuilder implements ScanBuilder {
  private final QuiverTable table;

  public QuiverScanBuilder(QuiverTable table, CaseInsensitiveStringMap options) {
    this.table = table;
  }

  @Override
  public Scan build() {
    throw new UnsupportedOperationException("reads are not written yet: " + table);
  }
}
