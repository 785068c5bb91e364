package io.quiver.internal.write;

import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;

/**
 * A digest of a multiset of rows: the same rows give the same digest whatever their order, their batch
 * boundaries, the fragments or the workers they were split across, and the files they were written to.
 * That is what lets a retried keyed append, which wrote the same rows into new data files, be recognised
 * as the commit that already happened ({@link CommitOptions#withIdempotenceKey}).
 *
 * <p>Each row gets two independent 64-bit hashes of its cells (values, not buffers: bytes under a null are
 * ignored, a null struct hides its members); the digest is the row count and the wrapping sums of both
 * hashes, so partial digests add up. {@link #hex} binds it to the schema's field ids and types with SHA-256.
 * Mutable accumulator; not thread-safe.
 */
final public class RowDigest {
  private static final long SEED_A = 0x243F6A8885A308D3L;
  private static final long SEED_B = 0x13198A2E03707344L;
  private static final long NULL_A = 0xA4093822299F31D0L;
  private static final long NULL_B = 0x082EFA98EC4E6C89L;

  private long rows;
  private long sumA;
  private long sumB;

  public RowDigest() {}

  public RowDigest(long rows, long sumA, long sumB) {
    this.rows = rows;
    this.sumA = sumA;
    this.sumB = sumB;
  }

  public long rows() {
    return rows;
  }

  public long sumA() {
    return sumA;
  }

  public long sumB() {
    return sumB;
  }

  /** Adds the rows of {@code batch}. */
  public void add(VectorSchemaRoot batch) {
    int n = batch.getRowCount();
    if (n == 0) {
      return;
    }
    long[] a = new long[n];
    long[] b = new long[n];
    java.util.Arrays.fill(a, SEED_A);
    java.util.Arrays.fill(b, SEED_B);
    long[] ca = new long[n];
    long[] cb = new long[n];
    for (FieldVector v : batch.getFieldVectors()) {
      cells(v, 0, n, ca, cb);
      for (int i = 0; i < n; i++) {
        a[i] = mix(a[i] ^ ca[i]);
        b[i] = mix(b[i] + cb[i]);
      }
    }
    for (int i = 0; i < n; i++) {
      sumA += finish(a[i]);
      sumB += finish(b[i]);
    }
    rows += n;
  }

  /** Adds another digest's rows. */
  public void add(RowDigest other) {
    rows += other.rows;
    sumA += other.sumA;
    sumB += other.sumB;
  }

  /** SHA-256 (hex) of {@code kind}, the schema's atomic field ids and types, and the row multiset. */
  public String hex(String kind, Schema schema) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(("quiver-rows-v1/" + kind + "/").getBytes(StandardCharsets.UTF_8));
      List<Field> atomic = schema.atomicFields();
      for (Field f : atomic) {
        sha.update((f.id() + ":" + f.type() + ";").getBytes(StandardCharsets.UTF_8));
      }
      sha.update(ByteBuffer.allocate(24).putLong(rows).putLong(sumA).putLong(sumB).array());
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** Per-element hashes of {@code v}'s elements {@code [start, start + count)} into {@code outA/outB[0..count)}. */
  private static void cells(ValueVector v, int start, int count, long[] outA, long[] outB) {
    if (v instanceof BitVector bits) {
      for (int i = 0; i < count; i++) {
        int j = start + i;
        if (bits.isNull(j)) {
          nul(outA, outB, i);
        } else {
          long x = bits.get(j);
          outA[i] = mix(x ^ SEED_A);
          outB[i] = mix(x + SEED_B);
        }
      }
    } else if (v instanceof BaseFixedWidthVector fixed) {
      int width = fixed.getTypeWidth();
      ArrowBuf data = fixed.getDataBuffer();
      boolean noNulls = fixed.getNullCount() == 0;
      for (int i = 0; i < count; i++) {
        int j = start + i;
        if (!noNulls && fixed.isNull(j)) {
          nul(outA, outB, i);
        } else if (width == 8 || width == 4) {
          // The common widths read as one word; the same value as bytes() gives for them.
          long x = width == 8 ? data.getLong((long) j * 8) : data.getInt((long) j * 4) & 0xFFFFFFFFL;
          outA[i] = mix((SEED_A ^ width) ^ x);
          outB[i] = mix((SEED_B + width) + x);
        } else {
          bytes(data, (long) j * width, width, outA, outB, i);
        }
      }
    } else if (v instanceof BaseVariableWidthVector var) {
      ArrowBuf offsets = var.getOffsetBuffer();
      ArrowBuf data = var.getDataBuffer();
      for (int i = 0; i < count; i++) {
        int j = start + i;
        if (var.isNull(j)) {
          nul(outA, outB, i);
        } else {
          int from = offsets.getInt((long) j * BaseVariableWidthVector.OFFSET_WIDTH);
          int to = offsets.getInt((long) (j + 1) * BaseVariableWidthVector.OFFSET_WIDTH);
          bytes(data, from, to - from, outA, outB, i);
        }
      }
    } else if (v instanceof BaseLargeVariableWidthVector var) {
      ArrowBuf offsets = var.getOffsetBuffer();
      ArrowBuf data = var.getDataBuffer();
      for (int i = 0; i < count; i++) {
        int j = start + i;
        if (var.isNull(j)) {
          nul(outA, outB, i);
        } else {
          long from = offsets.getLong((long) j * BaseLargeVariableWidthVector.OFFSET_WIDTH);
          long to = offsets.getLong((long) (j + 1) * BaseLargeVariableWidthVector.OFFSET_WIDTH);
          bytes(data, from, (int) (to - from), outA, outB, i);
        }
      }
    } else if (v instanceof NonNullableStructVector struct) {
      long[] a = new long[count];
      long[] b = new long[count];
      java.util.Arrays.fill(a, SEED_A ^ 0x5EL);
      java.util.Arrays.fill(b, SEED_B ^ 0x5EL);
      long[] ca = new long[count];
      long[] cb = new long[count];
      for (FieldVector child : struct.getChildrenFromFields()) {
        cells(child, start, count, ca, cb);
        for (int i = 0; i < count; i++) {
          a[i] = mix(a[i] ^ ca[i]);
          b[i] = mix(b[i] + cb[i]);
        }
      }
      for (int i = 0; i < count; i++) {
        if (struct.isNull(start + i)) {
          nul(outA, outB, i);
        } else {
          outA[i] = a[i];
          outB[i] = b[i];
        }
      }
    } else if (v instanceof ListVector || v instanceof LargeListVector || v instanceof FixedSizeListVector) {
      lists(v, start, count, outA, outB);
    } else {
      // Unions and anything else: hash the value's text (slow, but exact for equal values).
      for (int i = 0; i < count; i++) {
        int j = start + i;
        if (v.isNull(j)) {
          nul(outA, outB, i);
        } else {
          byte[] text = String.valueOf(v.getObject(j)).getBytes(StandardCharsets.UTF_8);
          long a = SEED_A ^ text.length;
          long b = SEED_B + text.length;
          for (byte x : text) {
            a = mix(a ^ x);
            b = mix(b + x);
          }
          outA[i] = a;
          outB[i] = b;
        }
      }
    }
  }

  private static void lists(ValueVector v, int start, int count, long[] outA, long[] outB) {
    long[] from = new long[count];
    long[] to = new long[count];
    ValueVector child;
    for (int i = 0; i < count; i++) {
      int j = start + i;
      if (v instanceof ListVector list) {
        from[i] = list.getElementStartIndex(j);
        to[i] = list.getElementEndIndex(j);
      } else if (v instanceof LargeListVector list) {
        from[i] = list.getElementStartIndex(j);
        to[i] = list.getElementEndIndex(j);
      } else {
        FixedSizeListVector list = (FixedSizeListVector) v;
        from[i] = (long) j * list.getListSize();
        to[i] = from[i] + list.getListSize();
      }
    }
    if (v instanceof ListVector list) {
      child = list.getDataVector();
    } else if (v instanceof LargeListVector list) {
      child = list.getDataVector();
    } else {
      child = ((FixedSizeListVector) v).getDataVector();
    }
    // One pass over the elements of all the rows (offsets ascend), then a fold per row.
    long first = count == 0 ? 0 : from[0];
    long last = count == 0 ? 0 : to[count - 1];
    for (int i = 0; i < count; i++) {
      if (v.isNull(start + i)) {
        continue;
      }
      first = Math.min(first, from[i]);
      last = Math.max(last, to[i]);
    }
    int elements = (int) Math.max(0, last - first);
    long[] ea = new long[elements];
    long[] eb = new long[elements];
    cells(child, (int) first, elements, ea, eb);
    for (int i = 0; i < count; i++) {
      if (v.isNull(start + i)) {
        nul(outA, outB, i);
        continue;
      }
      int len = (int) (to[i] - from[i]);
      long a = SEED_A ^ ((long) len << 1);
      long b = SEED_B + len;
      for (int k = (int) (from[i] - first), end = k + len; k < end; k++) {
        a = mix(a ^ ea[k]);
        b = mix(b + eb[k]);
      }
      outA[i] = a;
      outB[i] = b;
    }
  }

  private static void bytes(ArrowBuf buf, long from, int length, long[] outA, long[] outB, int i) {
    long a = SEED_A ^ length;
    long b = SEED_B + length;
    long p = from;
    long end = from + length;
    for (; p + 8 <= end; p += 8) {
      long x = buf.getLong(p);
      a = mix(a ^ x);
      b = mix(b + x);
    }
    if (p < end) {
      long x = 0;
      for (int k = 0; p < end; p++, k += 8) {
        x |= (buf.getByte(p) & 0xFFL) << k;
      }
      a = mix(a ^ x);
      b = mix(b + x);
    }
    outA[i] = a;
    outB[i] = b;
  }

  private static void nul(long[] outA, long[] outB, int i) {
    outA[i] = NULL_A;
    outB[i] = NULL_B;
  }

  private static long mix(long x) {
    x *= 0x9E3779B97F4A7C15L;
    x ^= x >>> 32;
    x *= 0xD6E8FEB86659FD93L;
    return x ^ (x >>> 29);
  }

  private static long finish(long x) {
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    return x ^ (x >>> 33);
  }
}
