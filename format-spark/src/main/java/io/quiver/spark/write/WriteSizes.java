package io.quiver.spark.write;

import io.quiver.exceptions.InvalidArgumentException;
import java.io.Serializable;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * How a task batches and cuts what it writes, from the write options. A task buffers at most one fragment:
 * it hands its batches to Quiver when they reach {@code rowsPerFragment} rows or {@code fragmentBytes} bytes
 * of Arrow buffers, whichever comes first, so a task's memory is bounded whatever its partition's size.
 *
 * @param rowsPerBatch rows per Arrow batch (option {@value #ROWS_PER_BATCH}, default 8192)
 * @param rowsPerFragment most rows per fragment (option {@value #ROWS_PER_FRAGMENT}, default 1,048,576)
 * @param fragmentBytes most Arrow buffer bytes a task buffers before writing a fragment (option {@value
 *     #FRAGMENT_BYTES}, default 128 MiB)
 */
record WriteSizes(int rowsPerBatch, long rowsPerFragment, long fragmentBytes) implements Serializable {
  static final String ROWS_PER_BATCH = "quiver.write.rowsPerBatch";
  static final String ROWS_PER_FRAGMENT = "quiver.write.rowsPerFragment";
  static final String FRAGMENT_BYTES = "quiver.write.fragmentBytes";

  WriteSizes {
    if (rowsPerBatch < 1 || rowsPerFragment < 1 || rowsPerFragment > (1L << 32) || fragmentBytes < 1) {
      throw new InvalidArgumentException("write options need " + ROWS_PER_BATCH + " >= 1, " + ROWS_PER_FRAGMENT
          + " in [1, 2^32] and " + FRAGMENT_BYTES + " >= 1; found " + rowsPerBatch + ", " + rowsPerFragment + ", "
          + fragmentBytes);
    }
    rowsPerBatch = (int) Math.min(rowsPerBatch, rowsPerFragment);
  }

  static WriteSizes from(CaseInsensitiveStringMap options) {
    return new WriteSizes((int) number(options, ROWS_PER_BATCH, 8192), number(options, ROWS_PER_FRAGMENT, 1L << 20),
        number(options, FRAGMENT_BYTES, 128L << 20));
  }

  private static long number(CaseInsensitiveStringMap options, String key, long fallback) {
    String v = options.get(key);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException("write option '" + key + "' must be a whole number; found '" + v + "'");
    }
  }
}
