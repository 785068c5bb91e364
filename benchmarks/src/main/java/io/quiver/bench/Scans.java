package io.quiver.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * How every scan benchmark consumes what it reads, whatever system produced it: it counts rows and
 * sums the {@code id} column when projected (so each row is touched and a wrong or missing row changes
 * the checksum), and sums the value counts of every other column (so no column can be skipped).
 */
public final class Scans {
  private Scans() {}

  /** The checksum of one batch. */
  public static long consume(VectorSchemaRoot root) {
    long sum = 0;
    int rows = root.getRowCount();
    for (FieldVector v : root.getFieldVectors()) {
      if (v instanceof BigIntVector ids && v.getName().equals("id")) {
        for (int r = 0; r < rows; r++) {
          sum += ids.get(r);
        }
      } else {
        sum += v.getValueCount();
      }
    }
    return sum + rows;
  }

  /** Drains a reader, closing it; returns the checksum of every batch. */
  public static long drain(ArrowReader reader) {
    try (reader) {
      long sum = 0;
      while (reader.loadNextBatch()) {
        sum += consume(reader.getVectorSchemaRoot());
      }
      return sum;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The checksum a full read of rows {@code [0, rows)} with {@code columns} projected columns, {@code
   * id} among them, must give: the sum of ids, plus rows for every other column, plus rows.
   */
  public static long expected(long rows, int columns) {
    return rows * (rows - 1) / 2 + rows * (columns - 1) + rows;
  }

  /** Fails the run when a scan returned something else than the table holds. */
  public static long check(String what, long actual, long expected) {
    if (actual != expected) {
      throw new IllegalStateException(what + ": expected checksum " + expected + ", got " + actual
          + " (rows missing, duplicated or wrong)");
    }
    return actual;
  }
}
