package io.quiver.spark.write;

import io.quiver.spark.QuiverTable;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/** STUB (being written): batch and streaming writes to a Quiver table. */
public final class QuiverWriteBuilder implements WriteBuilder {
  private final QuiverTable table;

  public QuiverWriteBuilder(QuiverTable table, LogicalWriteInfo info) {
    this.table = table;
  }

  @Override
  public Write build() {
    throw new UnsupportedOperationException("writes are not written yet: " + table);
  }
}
