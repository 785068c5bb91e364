package io.quiver.file;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Structural checks on freshly loaded vectors: buffers large enough for the value count, offsets
 * monotonic and inside their data. Without them a hostile file would surface later as an
 * IndexOutOfBoundsException in the caller's code. Values themselves (decimal precision, UTF-8) are not
 * checked: they cannot make Arrow read out of bounds. Arrow's own ValueVectorUtility.validateFull is not
 * used because it rejects half floats.
 */
final class BatchValidator {
  private BatchValidator() {}

  /** Returns null when the root is sound, else what is wrong. */
  static String check(VectorSchemaRoot root) {
    for (FieldVector v : root.getFieldVectors()) {
      String problem = check(v, v.getName());
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String check(FieldVector v, String path) {
    long n = v.getValueCount();
    if (v.getValidityBuffer().capacity() < (n + 7) / 8) {
      return path + ": validity buffer of " + v.getValidityBuffer().capacity() + " bytes for " + n + " values";
    }
    if (v instanceof BitVector b) {
      return atLeast(path, "data", b.getDataBuffer(), (n + 7) / 8);
    }
    if (v instanceof BaseFixedWidthVector f) {
      return atLeast(path, "data", f.getDataBuffer(), n * f.getTypeWidth());
    }
    if (v instanceof BaseVariableWidthVector w) {
      return offsets(path, w.getOffsetBuffer(), n, 4, w.getDataBuffer().capacity());
    }
    if (v instanceof BaseLargeVariableWidthVector w) {
      return offsets(path, w.getOffsetBuffer(), n, 8, w.getDataBuffer().capacity());
    }
    if (v instanceof ListVector l) {
      String p = offsets(path, l.getOffsetBuffer(), n, 4, l.getDataVector().getValueCount());
      return p != null ? p : check(l.getDataVector(), path + "." + l.getDataVector().getName());
    }
    if (v instanceof LargeListVector l) {
      String p = offsets(path, l.getOffsetBuffer(), n, 8, l.getDataVector().getValueCount());
      return p != null ? p : check(l.getDataVector(), path + "." + l.getDataVector().getName());
    }
    if (v instanceof FixedSizeListVector l) {
      FieldVector child = l.getDataVector();
      if (child.getValueCount() < n * l.getListSize()) {
        return path + ": " + child.getValueCount() + " child values for " + n + " lists of "
            + l.getListSize();
      }
      return check(child, path + "." + child.getName());
    }
    if (v instanceof StructVector s) {
      for (FieldVector child : s.getChildrenFromFields()) {
        if (child.getValueCount() < n) {
          return path + "." + child.getName() + ": " + child.getValueCount() + " values, struct has " + n;
        }
        String p = check(child, path + "." + child.getName());
        if (p != null) {
          return p;
        }
      }
      return null;
    }
    return path + ": unexpected vector " + v.getClass().getSimpleName();
  }

  private static String atLeast(String path, String what, ArrowBuf buf, long bytes) {
    return buf.capacity() < bytes
        ? path + ": " + what + " buffer of " + buf.capacity() + " bytes, " + bytes + " needed"
        : null;
  }

  /** Offsets: n+1 entries (none when n == 0), starting at >= 0, non-decreasing, ending at <= limit. */
  private static String offsets(String path, ArrowBuf offsets, long n, int width, long limit) {
    if (n == 0) {
      return null;
    }
    String size = atLeast(path, "offset", offsets, (n + 1) * width);
    if (size != null) {
      return size;
    }
    long previous = read(offsets, 0, width);
    if (previous < 0) {
      return path + ": first offset is " + previous;
    }
    for (long i = 1; i <= n; i++) {
      long current = read(offsets, i, width);
      if (current < previous) {
        return path + ": offsets decrease at index " + i + " (" + previous + " then " + current + ")";
      }
      previous = current;
    }
    if (previous > limit) {
      return path + ": last offset " + previous + " is past the end of the values (" + limit + ")";
    }
    return null;
  }

  private static long read(ArrowBuf buf, long index, int width) {
    return width == 4 ? buf.getInt(index * 4) : buf.getLong(index * 8);
  }
}
