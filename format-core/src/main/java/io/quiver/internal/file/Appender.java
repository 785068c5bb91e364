package io.quiver.internal.file;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.util.VectorAppender;

/**
 * Appends one vector's values to another of the same type, at buffer level. Leaves go through Arrow's
 * {@link VectorAppender}; containers are handled here because Arrow 19's appender casts a large list to
 * a list (ClassCastException) and would reach nested large lists through structs and lists.
 *
 * <p>Deltas must come from {@code TransferPair.splitAndTransfer}, whose list offsets start at 0.
 */
final public class Appender {
  private Appender() {}

  static void append(FieldVector target, FieldVector delta) {
    int d = delta.getValueCount();
    if (d == 0) {
      return;
    }
    int t = target.getValueCount();
    int n = t + d;
    if (target instanceof StructVector s) {
      while (s.getValueCapacity() < n) {
        s.reAlloc();
      }
      concatValidity(target, t, delta, d);
      List<FieldVector> targetChildren = s.getChildrenFromFields();
      List<FieldVector> deltaChildren = ((StructVector) delta).getChildrenFromFields();
      for (int i = 0; i < targetChildren.size(); i++) {
        append(targetChildren.get(i), deltaChildren.get(i));
      }
      s.setValueCount(n);
    } else if (target instanceof ListVector l) { // and MapVector
      ListVector dl = (ListVector) delta;
      while (l.getValueCapacity() < n) {
        l.reAlloc();
      }
      concatValidity(target, t, delta, d);
      ArrowBuf to = l.getOffsetBuffer();
      ArrowBuf from = dl.getOffsetBuffer();
      checkZeroBased(from.getInt(0));
      int base = to.getInt((long) t * 4);
      for (int i = 1; i <= d; i++) {
        to.setInt((long) (t + i) * 4, base + from.getInt((long) i * 4));
      }
      append(l.getDataVector(), dl.getDataVector());
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else if (target instanceof LargeListVector l) {
      LargeListVector dl = (LargeListVector) delta;
      while (l.getValueCapacity() < n) {
        l.reAlloc();
      }
      concatValidity(target, t, delta, d);
      ArrowBuf to = l.getOffsetBuffer();
      ArrowBuf from = dl.getOffsetBuffer();
      checkZeroBased(from.getLong(0));
      long base = to.getLong((long) t * 8);
      for (int i = 1; i <= d; i++) {
        to.setLong((long) (t + i) * 8, base + from.getLong((long) i * 8));
      }
      append(l.getDataVector(), dl.getDataVector());
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else if (target instanceof FixedSizeListVector f) {
      while (f.getValueCapacity() < n) {
        f.reAlloc();
      }
      concatValidity(target, t, delta, d);
      append(f.getDataVector(), ((FixedSizeListVector) delta).getDataVector());
      f.setValueCount(n);
    } else {
      delta.accept(new VectorAppender(target), null);
    }
  }

  private static void concatValidity(FieldVector target, int t, FieldVector delta, int d) {
    BitVectorHelper.concatBits(
        target.getValidityBuffer(), t, delta.getValidityBuffer(), d, target.getValidityBuffer());
  }

  private static void checkZeroBased(long firstOffset) {
    if (firstOffset != 0) {
      throw new IllegalStateException("appended list slice starts at offset " + firstOffset + ", not 0");
    }
  }
}
