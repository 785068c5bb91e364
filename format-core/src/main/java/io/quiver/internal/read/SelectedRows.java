package io.quiver.internal.read;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Copies the selected rows of a vector into another of the same type: what a scan does to every batch of a
 * fragment with deleted rows (or a filter, or an index selection). The selection is ascending and mostly runs of
 * consecutive rows (a few deletions leave long runs), so fixed-width vectors and variable-width ones with 32-bit
 * offsets ({@code Utf8}, {@code Binary}) are copied a run at a time — one memory copy of the values per run, the
 * offsets rebased — instead of one {@code copyFromSafe} call per row; other types (booleans, large and view
 * types, lists, structs, maps) fall back to {@code copyFromSafe}.
 */
final class SelectedRows {
  private SelectedRows() {}

  /** {@code to} (cleared first; same type as {@code from}) gets {@code from}'s rows {@code selected}, in order. */
  static void copy(FieldVector from, FieldVector to, int[] selected) {
    int n = selected.length;
    if (from instanceof BaseFixedWidthVector f && !(from instanceof BitVector)) {
      fixedWidth(f, (BaseFixedWidthVector) to, selected);
    } else if (from instanceof BaseVariableWidthVector v) {
      variableWidth(v, (BaseVariableWidthVector) to, selected);
    } else {
      to.clear();
      to.allocateNew();
      for (int i = 0; i < n; i++) {
        to.copyFromSafe(selected[i], i, from);
      }
      to.setValueCount(n);
    }
  }

  private static void fixedWidth(BaseFixedWidthVector from, BaseFixedWidthVector to, int[] selected) {
    int n = selected.length;
    int width = from.getTypeWidth();
    to.clear();
    to.allocateNew(Math.max(n, 1));
    ArrowBuf src = from.getDataBuffer();
    ArrowBuf dst = to.getDataBuffer();
    for (int i = 0; i < n; ) {
      int run = run(selected, i);
      dst.setBytes((long) i * width, src, (long) selected[i] * width, (long) run * width);
      i += run;
    }
    validity(from, to.getValidityBuffer(), selected);
    to.setValueCount(n);
  }

  private static void variableWidth(BaseVariableWidthVector from, BaseVariableWidthVector to, int[] selected) {
    int n = selected.length;
    ArrowBuf srcOffsets = from.getOffsetBuffer();
    long bytes = 0;
    for (int i = 0; i < n; ) {
      int run = run(selected, i);
      bytes += offset(srcOffsets, selected[i] + run) - offset(srcOffsets, selected[i]);
      i += run;
    }
    to.clear();
    to.allocateNew(Math.max(bytes, 1), Math.max(n, 1));
    ArrowBuf srcData = from.getDataBuffer();
    ArrowBuf dstOffsets = to.getOffsetBuffer();
    ArrowBuf dstData = to.getDataBuffer();
    int written = 0;
    dstOffsets.setInt(0, 0);
    for (int i = 0; i < n; ) {
      int run = run(selected, i);
      int first = selected[i];
      int base = offset(srcOffsets, first);
      int length = offset(srcOffsets, first + run) - base;
      dstData.setBytes(written, srcData, base, length);
      for (int r = 1; r <= run; r++) {
        dstOffsets.setInt((long) (i + r) * BaseVariableWidthVector.OFFSET_WIDTH,
            offset(srcOffsets, first + r) - base + written);
      }
      written += length;
      i += run;
    }
    validity(from, to.getValidityBuffer(), selected);
    to.setLastSet(n - 1);
    to.setValueCount(n);
  }

  /** Sets {@code validity}'s bits (all clear on entry) for the selected rows of {@code from} that are not null. */
  private static void validity(FieldVector from, ArrowBuf validity, int[] selected) {
    int n = selected.length;
    if (from.getNullCount() == 0) {
      int whole = n / 8;
      if (whole > 0) {
        validity.setOne(0L, whole);
      }
      for (int i = whole * 8; i < n; i++) {
        BitVectorHelper.setBit(validity, i);
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      if (!from.isNull(selected[i])) {
        BitVectorHelper.setBit(validity, i);
      }
    }
  }

  private static int offset(ArrowBuf offsets, int index) {
    return offsets.getInt((long) index * BaseVariableWidthVector.OFFSET_WIDTH);
  }

  /** The length of the run of consecutive rows of {@code selected} starting at position {@code i}. */
  private static int run(int[] selected, int i) {
    int j = i + 1;
    while (j < selected.length && selected[j] == selected[j - 1] + 1) {
      j++;
    }
    return j - i;
  }
}
