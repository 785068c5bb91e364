package io.quiver.manifest;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One bound of a column's values, in the column's stored representation (docs/format.md §3.1): what the
 * manifest's column statistics and a {@link FieldBounds} hold. Which kind a column uses follows from its type:
 *
 * <ul>
 *   <li>{@link Int}: signed and unsigned integers below 64 bits, int64, date (days or milliseconds), time,
 *       timestamp and duration (the stored integer in the type's unit);
 *   <li>{@link UInt64}: unsigned 64-bit integers (the bits of the value);
 *   <li>{@link Real}: floating point of any width (widened exactly to a double; never NaN);
 *   <li>{@link Bool}: booleans ({@code false < true});
 *   <li>{@link Decimal}: the unscaled value (the column's scale applies);
 *   <li>{@link Bytes}: utf8 and large utf8 (UTF-8 bytes), binary, large binary and fixed-size binary, compared
 *       as unsigned bytes; possibly truncated (a lower bound is then a prefix of the least value, an upper
 *       bound a prefix with its last code point or byte incremented).
 * </ul>
 */
public sealed interface StatValue {
  /** A signed 64-bit value. */
  record Int(long value) implements StatValue {
    @Override
    public String toString() {
      return Long.toString(value);
    }
  }

  /** An unsigned 64-bit value held in a long's bits. */
  record UInt64(long bits) implements StatValue {
    @Override
    public String toString() {
      return Long.toUnsignedString(bits);
    }
  }

  /** A floating-point value, never NaN. */
  record Real(double value) implements StatValue {
    public Real {
      if (Double.isNaN(value)) {
        throw new IllegalArgumentException("a floating-point bound is never NaN (NaN is counted, not bounded)");
      }
    }

    @Override
    public String toString() {
      return Double.toString(value);
    }
  }

  /** A boolean. */
  record Bool(boolean value) implements StatValue {
    @Override
    public String toString() {
      return Boolean.toString(value);
    }
  }

  /** The unscaled value of a decimal. */
  record Decimal(BigInteger unscaled) implements StatValue {
    public Decimal {
      if (unscaled == null) {
        throw new IllegalArgumentException("a decimal bound needs an unscaled value");
      }
    }

    @Override
    public String toString() {
      return unscaled.toString();
    }
  }

  /** Bytes (UTF-8 for strings); compared as unsigned bytes. */
  record Bytes(byte[] value) implements StatValue {
    public Bytes {
      if (value == null) {
        throw new IllegalArgumentException("a bytes bound needs bytes");
      }
      value = value.clone();
    }

    @Override
    public byte[] value() {
      return value.clone();
    }

    /** The bytes without a copy, for readers inside the library that do not change them. */
    public int compareTo(byte[] other, int length) {
      return Arrays.compareUnsigned(value, 0, value.length, other, 0, length);
    }

    public int length() {
      return value.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "X'" + HexFormat.of().withUpperCase().formatHex(value) + "'";
    }
  }
}
