package io.quiver.internal.txn;

import io.quiver.internal.file.StatValues;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.StatValue;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The keys a merge-insert inserted, as its transaction records them for the conflict resolver: exactly (the
 * sorted encoded key tuples) up to {@link #EXACT_LIMIT} keys, a Bloom filter with a false-positive rate of
 * {@link #BLOOM_FPP} beyond. Either form also keeps, per key column, the least and greatest inserted value.
 * Every question it answers is "may": a false positive only makes a concurrent writer retry, it never lets two
 * inserts of one key both commit. Pure: no I/O.
 *
 * <p>A key tuple is encoded column by column, each value in its statistics representation ({@link StatValue}):
 * a tag byte (0 null, 1 int, 2 unsigned 64-bit, 3 real, 4 bool, 5 decimal, 6 bytes) and the value (8 bytes
 * big-endian for the fixed kinds, 1 byte for bool, a 4-byte length and the bytes for decimal and bytes).
 */
public final class MergeKeys {
  /** Inserted keys recorded exactly, at most. */
  public static final int EXACT_LIMIT = 10_000;

  /** False-positive rate of the Bloom filter used beyond {@link #EXACT_LIMIT} keys. */
  public static final double BLOOM_FPP = 0.01;

  private static final MergeKeys NONE = new MergeKeys(0, List.of(), new long[0], 0, new byte[0], new byte[0]);

  private final long count;
  private final List<byte[]> exact;
  private final long[] bloom;
  private final int hashes;
  private final byte[] lower;
  private final byte[] upper;

  private MergeKeys(long count, List<byte[]> exact, long[] bloom, int hashes, byte[] lower, byte[] upper) {
    this.count = count;
    this.exact = exact;
    this.bloom = bloom;
    this.hashes = hashes;
    this.lower = lower;
    this.upper = upper;
  }

  /** No key inserted. */
  public static MergeKeys none() {
    return NONE;
  }

  /** The given distinct encoded key tuples (no null component). */
  public static MergeKeys of(Collection<byte[]> keys) {
    if (keys.isEmpty()) {
      return NONE;
    }
    List<List<StatValue>> decoded = new ArrayList<>();
    for (byte[] k : keys) {
      decoded.add(decode(k));
    }
    int columns = decoded.get(0).size();
    List<StatValue> least = new ArrayList<>(decoded.get(0));
    List<StatValue> greatest = new ArrayList<>(decoded.get(0));
    for (List<StatValue> t : decoded) {
      for (int c = 0; c < columns; c++) {
        if (StatValues.compare(t.get(c), least.get(c)) < 0) {
          least.set(c, t.get(c));
        }
        if (StatValues.compare(t.get(c), greatest.get(c)) > 0) {
          greatest.set(c, t.get(c));
        }
      }
    }
    if (keys.size() <= EXACT_LIMIT) {
      List<byte[]> sorted = new ArrayList<>(keys);
      sorted.sort(Arrays::compareUnsigned);
      return new MergeKeys(keys.size(), List.copyOf(sorted), new long[0], 0, encode(least), encode(greatest));
    }
    long bits = (long) Math.ceil(-keys.size() * Math.log(BLOOM_FPP) / (Math.log(2) * Math.log(2)));
    int k = Math.max(1, (int) Math.round(bits / (double) keys.size() * Math.log(2)));
    long[] words = new long[(int) ((bits + 63) / 64)];
    for (byte[] key : keys) {
      for (long bit : positions(key, k, words.length * 64L)) {
        words[(int) (bit >>> 6)] |= 1L << (bit & 63);
      }
    }
    return new MergeKeys(keys.size(), List.of(), words, k, encode(least), encode(greatest));
  }

  /** A decoded record (the codec's constructor): exact keys, or Bloom words and hash count. */
  public static MergeKeys decoded(long count, List<byte[]> exact, long[] bloom, int hashes, byte[] lower,
      byte[] upper) {
    if (count == 0) {
      return NONE;
    }
    if (exact.isEmpty() == (bloom.length == 0) || (bloom.length > 0 && hashes < 1)) {
      throw new IllegalArgumentException(
          "inserted keys need either exact keys or a Bloom filter with at least one hash, found " + exact.size()
              + " keys and " + bloom.length + " filter words with " + hashes + " hashes");
    }
    return new MergeKeys(count, List.copyOf(exact), bloom.clone(), hashes, lower.clone(), upper.clone());
  }

  public long count() {
    return count;
  }

  public boolean isEmpty() {
    return count == 0;
  }

  /** Whether the keys are recorded exactly (else as a Bloom filter). */
  public boolean isExact() {
    return bloom.length == 0;
  }

  /** The exact keys, sorted as unsigned bytes (empty for a Bloom filter). */
  public List<byte[]> exact() {
    return exact;
  }

  public long[] bloomWords() {
    return bloom.clone();
  }

  public int bloomHashes() {
    return hashes;
  }

  /** Per key column, the least inserted value (an encoded tuple; empty when no key). */
  public byte[] lower() {
    return lower.clone();
  }

  /** Per key column, the greatest inserted value (an encoded tuple; empty when no key). */
  public byte[] upper() {
    return upper.clone();
  }

  /** Whether {@code key} may be among the inserted keys (exact, or the Bloom filter's answer). */
  public boolean mightContain(byte[] key) {
    if (count == 0) {
      return false;
    }
    if (isExact()) {
      return java.util.Collections.binarySearch(exact, key, Arrays::compareUnsigned) >= 0;
    }
    for (long bit : positions(key, hashes, bloom.length * 64L)) {
      if ((bloom[(int) (bit >>> 6)] & (1L << (bit & 63))) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a key may be in both sets: exactly when one side is exact, from the per-column ranges when both are
   * Bloom filters.
   */
  public boolean mayIntersect(MergeKeys other) {
    if (count == 0 || other.count == 0) {
      return false;
    }
    if (isExact() && other.isExact()) {
      int i = 0;
      int j = 0;
      while (i < exact.size() && j < other.exact.size()) {
        int c = Arrays.compareUnsigned(exact.get(i), other.exact.get(j));
        if (c == 0) {
          return true;
        }
        if (c < 0) {
          i++;
        } else {
          j++;
        }
      }
      return false;
    }
    if (isExact() || other.isExact()) {
      MergeKeys listed = isExact() ? this : other;
      MergeKeys filter = isExact() ? other : this;
      for (byte[] k : listed.exact) {
        if (filter.mightContain(k)) {
          return true;
        }
      }
      return false;
    }
    List<StatValue> lo = decode(lower);
    List<StatValue> hi = decode(upper);
    List<StatValue> olo = decode(other.lower);
    List<StatValue> ohi = decode(other.upper);
    if (lo.size() != olo.size()) {
      return true;
    }
    for (int c = 0; c < lo.size(); c++) {
      try {
        if (StatValues.compare(hi.get(c), olo.get(c)) < 0 || StatValues.compare(ohi.get(c), lo.get(c)) < 0) {
          return false;
        }
      } catch (IllegalArgumentException e) {
        return true; // values of different kinds: nothing known
      }
    }
    return true;
  }

  /**
   * Whether a row of one of {@code fragments} (new fragments: no overlays, no deletions) may hold one of the
   * keys, decided from the fragments' column statistics alone; true when a key column's statistics are missing.
   */
  public boolean mayBeIn(List<Fragment> fragments, List<Integer> keyFieldIds) {
    if (count == 0) {
      return false;
    }
    for (Fragment f : fragments) {
      if (mayBeIn(f, keyFieldIds)) {
        return true;
      }
    }
    return false;
  }

  private boolean mayBeIn(Fragment fragment, List<Integer> keyFieldIds) {
    List<Optional<StatValue>> lows = new ArrayList<>();
    List<Optional<StatValue>> highs = new ArrayList<>();
    for (int id : keyFieldIds) {
      DataFile file = fragment.files().stream().filter(d -> d.liveFieldIds().contains(id)).findFirst().orElse(null);
      if (file == null) {
        return false; // the column is all null there, and a null key never matches
      }
      Optional<FileStats> stats = file.stats();
      Optional<ColumnStats> column = file.statsOf(id);
      if (stats.isEmpty() || column.isEmpty() || stats.get().rowCount() != fragment.physicalRows()) {
        return true;
      }
      ColumnStats cs = column.get();
      if (cs.nullCount() >= fragment.physicalRows()) {
        return false;
      }
      lows.add(cs.lower());
      highs.add(cs.upper());
    }
    return mayBeWithin(lows, highs);
  }

  /**
   * Whether a key may lie within the per-column bounds (a missing bound is unbounded on that side): each exact
   * key is checked, a Bloom filter's per-column ranges are.
   */
  public boolean mayBeWithin(List<Optional<StatValue>> lows, List<Optional<StatValue>> highs) {
    if (count == 0) {
      return false;
    }
    try {
      if (!isExact()) {
        List<StatValue> lo = decode(lower);
        List<StatValue> hi = decode(upper);
        for (int c = 0; c < lows.size(); c++) {
          if ((lows.get(c).isPresent() && StatValues.compare(hi.get(c), lows.get(c).get()) < 0)
              || (highs.get(c).isPresent() && StatValues.compare(lo.get(c), highs.get(c).get()) > 0)) {
            return false;
          }
        }
        return true;
      }
      for (byte[] k : exact) {
        List<StatValue> key = decode(k);
        boolean inside = true;
        for (int c = 0; c < lows.size() && inside; c++) {
          StatValue v = key.get(c);
          inside = (lows.get(c).isEmpty() || StatValues.compare(v, lows.get(c).get()) >= 0)
              && (highs.get(c).isEmpty() || StatValues.compare(v, highs.get(c).get()) <= 0);
        }
        if (inside) {
          return true;
        }
      }
      return false;
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return true; // bounds of another kind or arity than the keys': nothing known
    }
  }

  // ------------------------------------------------------------------ key tuples

  /** The encoded tuple (a null element is a null value). */
  public static byte[] encode(List<StatValue> tuple) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(tuple.size() * 9);
    for (StatValue v : tuple) {
      if (v == null) {
        out.write(0);
      } else if (v instanceof StatValue.Int x) {
        out.write(1);
        writeLong(out, x.value());
      } else if (v instanceof StatValue.UInt64 x) {
        out.write(2);
        writeLong(out, x.bits());
      } else if (v instanceof StatValue.Real x) {
        out.write(3);
        writeLong(out, Double.doubleToLongBits(x.value() == 0 ? 0.0 : x.value()));
      } else if (v instanceof StatValue.Bool x) {
        out.write(4);
        out.write(x.value() ? 1 : 0);
      } else if (v instanceof StatValue.Decimal x) {
        out.write(5);
        writeBytes(out, x.unscaled().toByteArray());
      } else if (v instanceof StatValue.Bytes x) {
        out.write(6);
        writeBytes(out, x.value());
      }
    }
    return out.toByteArray();
  }

  /** The tuple {@link #encode} wrote. */
  public static List<StatValue> decode(byte[] key) {
    ByteBuffer in = ByteBuffer.wrap(key);
    List<StatValue> out = new ArrayList<>();
    try {
      while (in.hasRemaining()) {
        int tag = in.get();
        out.add(switch (tag) {
          case 0 -> null;
          case 1 -> new StatValue.Int(in.getLong());
          case 2 -> new StatValue.UInt64(in.getLong());
          case 3 -> new StatValue.Real(Double.longBitsToDouble(in.getLong()));
          case 4 -> new StatValue.Bool(in.get() != 0);
          case 5 -> new StatValue.Decimal(new BigInteger(readBytes(in)));
          case 6 -> new StatValue.Bytes(readBytes(in));
          default -> throw new IllegalArgumentException("unknown key value tag " + tag);
        });
      }
    } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
      throw new IllegalArgumentException("truncated key tuple of " + key.length + " bytes");
    }
    return out;
  }

  /** A readable form of an encoded key, for messages: {@code (1, 'abc')}. */
  public static String describe(byte[] key) {
    List<String> parts = new ArrayList<>();
    for (StatValue v : decode(key)) {
      if (v == null) {
        parts.add("null");
      } else if (v instanceof StatValue.Bytes b) {
        byte[] bytes = b.value();
        String s = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        parts.add(java.util.Arrays.equals(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), bytes)
            ? "'" + s + "'" : b.toString());
      } else {
        parts.add(v.toString());
      }
    }
    return parts.size() == 1 ? parts.get(0) : "(" + String.join(", ", parts) + ")";
  }

  private static void writeLong(ByteArrayOutputStream out, long v) {
    for (int s = 56; s >= 0; s -= 8) {
      out.write((int) (v >>> s));
    }
  }

  private static void writeBytes(ByteArrayOutputStream out, byte[] b) {
    int n = b.length;
    out.write(n >>> 24);
    out.write(n >>> 16);
    out.write(n >>> 8);
    out.write(n);
    out.write(b, 0, n);
  }

  private static byte[] readBytes(ByteBuffer in) {
    byte[] b = new byte[in.getInt()];
    in.get(b);
    return b;
  }

  /** Bit positions of {@code key} in a filter of {@code bits} bits: double hashing of a 64-bit FNV-1a hash. */
  private static long[] positions(byte[] key, int k, long bits) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    long h1 = mix(h);
    long h2 = mix(h ^ 0x9e3779b97f4a7c15L) | 1;
    long[] out = new long[k];
    for (int i = 0; i < k; i++) {
      out[i] = Long.remainderUnsigned(h1 + i * h2, bits);
    }
    return out;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof MergeKeys m) || count != m.count || hashes != m.hashes || exact.size() != m.exact.size()
        || !Arrays.equals(bloom, m.bloom) || !Arrays.equals(lower, m.lower) || !Arrays.equals(upper, m.upper)) {
      return false;
    }
    for (int i = 0; i < exact.size(); i++) {
      if (!Arrays.equals(exact.get(i), m.exact.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(count) * 31 + Arrays.hashCode(lower);
  }

  @Override
  public String toString() {
    return "MergeKeys[" + count + (isExact() ? " exact" : " in a Bloom filter of " + bloom.length * 64L + " bits")
        + "]";
  }
}
