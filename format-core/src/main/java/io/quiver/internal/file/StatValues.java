package io.quiver.internal.file;

import io.quiver.manifest.StatValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Orders bounds of one kind and truncates string and binary bounds (docs/format.md §3.1): at most {@link
 * #TRUNCATE_LENGTH} code points (utf8) or bytes (binary); a lower bound is the prefix, an upper bound the
 * prefix with its last code point (byte) incremented, dropping trailing code points (bytes) that cannot be
 * incremented, or no upper bound when none can.
 */
public final class StatValues {
  /** Code points (utf8) or bytes (binary) a string or binary bound keeps. */
  public static final int TRUNCATE_LENGTH = 16;

  private StatValues() {}

  /** Order of two bounds of the same kind: the order the predicate evaluator compares values in. */
  public static int compare(StatValue a, StatValue b) {
    if (a instanceof StatValue.Int x && b instanceof StatValue.Int y) {
      return Long.compare(x.value(), y.value());
    }
    if (a instanceof StatValue.UInt64 x && b instanceof StatValue.UInt64 y) {
      return Long.compareUnsigned(x.bits(), y.bits());
    }
    if (a instanceof StatValue.Real x && b instanceof StatValue.Real y) {
      return Double.compare(x.value() == 0 ? 0.0 : x.value(), y.value() == 0 ? 0.0 : y.value());
    }
    if (a instanceof StatValue.Bool x && b instanceof StatValue.Bool y) {
      return Boolean.compare(x.value(), y.value());
    }
    if (a instanceof StatValue.Decimal x && b instanceof StatValue.Decimal y) {
      return x.unscaled().compareTo(y.unscaled());
    }
    if (a instanceof StatValue.Bytes x && b instanceof StatValue.Bytes y) {
      byte[] yb = y.value();
      return x.compareTo(yb, yb.length);
    }
    throw new IllegalArgumentException("bounds " + a + " and " + b + " are of different kinds");
  }

  /**
   * The bound of the union of two sets of values: the least ({@code sign} -1) or greatest ({@code sign} 1) of two
   * bounds, where a set without bounded values ({@code aValues} false) contributes nothing and a missing bound on
   * a set with values (unknown, or a string with no upper bound) leaves the union's bound missing.
   */
  public static Optional<StatValue> union(Optional<StatValue> a, Optional<StatValue> b, boolean aValues,
      boolean bValues, int sign) {
    if (!aValues) {
      return bValues ? b : Optional.empty();
    }
    if (!bValues) {
      return a;
    }
    if (a.isEmpty() || b.isEmpty() || !a.get().getClass().equals(b.get().getClass())) {
      return Optional.empty();
    }
    return compare(a.get(), b.get()) * sign >= 0 ? a : b;
  }

  /** The lower bound of {@code value}: its first {@link #TRUNCATE_LENGTH} code points (bytes). */
  public static byte[] truncateLower(byte[] value, int length, boolean utf8) {
    int end = utf8 ? utf8Prefix(value, length, TRUNCATE_LENGTH) : Math.min(length, TRUNCATE_LENGTH);
    return Arrays.copyOf(value, end);
  }

  /**
   * An upper bound of {@code value}: itself when short enough, else its prefix with the last code point
   * (byte) incremented; empty when no prefix can be incremented (every code point is U+10FFFF, every byte 0xFF).
   */
  public static Optional<byte[]> truncateUpper(byte[] value, int length, boolean utf8) {
    if (utf8) {
      int end = utf8Prefix(value, length, TRUNCATE_LENGTH);
      if (end == length) {
        return Optional.of(Arrays.copyOf(value, length));
      }
      Optional<byte[]> up = incrementCodePoints(new String(value, 0, end, StandardCharsets.UTF_8), value, end);
      if (up != null) {
        return up;
      }
      // Not valid UTF-8: bytes order the same way, so the binary rule gives a valid (if odd) bound.
      return incrementBytes(value, end);
    }
    if (length <= TRUNCATE_LENGTH) {
      return Optional.of(Arrays.copyOf(value, length));
    }
    return incrementBytes(value, TRUNCATE_LENGTH);
  }

  private static Optional<byte[]> incrementBytes(byte[] value, int end) {
    for (int i = end - 1; i >= 0; i--) {
      if (value[i] != (byte) 0xFF) {
        byte[] out = Arrays.copyOf(value, i + 1);
        out[i]++;
        return Optional.of(out);
      }
    }
    return Optional.empty();
  }

  /** Null when {@code prefix} is not what the bytes encode (invalid UTF-8). */
  private static Optional<byte[]> incrementCodePoints(String prefix, byte[] value, int end) {
    byte[] roundTrip = prefix.getBytes(StandardCharsets.UTF_8);
    if (!Arrays.equals(roundTrip, 0, roundTrip.length, value, 0, end)) {
      return null;
    }
    int[] cps = prefix.codePoints().toArray();
    for (int i = cps.length - 1; i >= 0; i--) {
      int next = cps[i] + 1;
      if (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) {
        next = Character.MAX_SURROGATE + 1;
      }
      if (next <= Character.MAX_CODE_POINT) {
        int[] out = Arrays.copyOf(cps, i + 1);
        out[i] = next;
        return Optional.of(new String(out, 0, out.length).getBytes(StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }

  /** Bytes of the first {@code codePoints} code points (a code point starts at every non-continuation byte). */
  private static int utf8Prefix(byte[] value, int length, int codePoints) {
    int seen = 0;
    for (int i = 0; i < length; i++) {
      if ((value[i] & 0xC0) != 0x80) {
        if (seen == codePoints) {
          return i;
        }
        seen++;
      }
    }
    return length;
  }
}
