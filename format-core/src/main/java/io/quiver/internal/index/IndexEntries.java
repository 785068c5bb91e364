package io.quiver.internal.index;

import io.quiver.internal.file.StatValues;
import io.quiver.manifest.StatValue;
import java.util.Arrays;

/**
 * (key, row address) pairs collected for one index segment, sorted by key (the order of docs/format.md §3.1) then
 * by address (unsigned). Integer-like keys (the common case: integers, dates, timestamps, {@link StatValue.Int}, and
 * unsigned 64-bit integers, {@link StatValue.UInt64}) are held in primitive arrays and sorted by an LSD radix sort
 * (stable, no comparisons); other kinds are held as objects and sorted by comparison.
 */
final class IndexEntries {
  /** Radix digit width: 2,048 buckets, six passes at most for 64 bits (a pass whose digit never varies is skipped). */
  private static final int DIGIT_BITS = 11;
  private static final int DIGITS = (Long.SIZE + DIGIT_BITS - 1) / DIGIT_BITS;
  private static final int BUCKETS = 1 << DIGIT_BITS;

  /** How the keys are held: not yet known (no entry), signed or unsigned primitives, objects. */
  private enum Held { NONE, INT, UINT, OBJECT }

  private long[] intKeys = new long[1024];
  private StatValue[] keys;
  private long[] addresses = new long[1024];
  private int size;
  private Held held = Held.NONE;

  void add(StatValue key, long address) {
    if (size == addresses.length) {
      addresses = Arrays.copyOf(addresses, size * 2);
      if (held == Held.OBJECT) {
        keys = Arrays.copyOf(keys, size * 2);
      } else {
        intKeys = Arrays.copyOf(intKeys, size * 2);
      }
    }
    if (held == Held.NONE) {
      held = key instanceof StatValue.Int ? Held.INT : key instanceof StatValue.UInt64 ? Held.UINT : Held.OBJECT;
      if (held == Held.OBJECT) {
        keys = new StatValue[addresses.length];
        intKeys = null;
      }
    } else if (held != Held.OBJECT && held != heldFor(key)) {
      keys = new StatValue[addresses.length];
      for (int i = 0; i < size; i++) {
        keys[i] = key(i);
      }
      intKeys = null;
      held = Held.OBJECT;
    }
    switch (held) {
      case INT -> intKeys[size] = ((StatValue.Int) key).value();
      case UINT -> intKeys[size] = ((StatValue.UInt64) key).bits();
      default -> keys[size] = key;
    }
    addresses[size++] = address;
  }

  private static Held heldFor(StatValue key) {
    return key instanceof StatValue.Int ? Held.INT : key instanceof StatValue.UInt64 ? Held.UINT : Held.OBJECT;
  }

  int size() {
    return size;
  }

  StatValue key(int i) {
    return switch (held) {
      case INT -> new StatValue.Int(intKeys[i]);
      case UINT -> new StatValue.UInt64(intKeys[i]);
      default -> keys[i];
    };
  }

  /** Whether the keys are {@link StatValue.Int} or {@link StatValue.UInt64} held as longs ({@link #rawKey}). */
  boolean primitive() {
    return held == Held.INT || held == Held.UINT;
  }

  /** Whether the primitive keys are unsigned ({@link StatValue.UInt64} bits). */
  boolean unsigned() {
    return held == Held.UINT;
  }

  /** The value (or unsigned bits) of primitive key {@code i}. */
  long rawKey(int i) {
    return intKeys[i];
  }

  long address(int i) {
    return addresses[i];
  }

  /** Whether entries i and j hold the same key. */
  boolean sameKey(int i, int j) {
    return primitive() ? intKeys[i] == intKeys[j] : StatValues.compare(keys[i], keys[j]) == 0;
  }

  void sort() {
    if (size < 2) {
      return;
    }
    if (primitive()) {
      radixSort();
      return;
    }
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> {
      int c = StatValues.compare(keys[a], keys[b]);
      return c != 0 ? c : Long.compareUnsigned(addresses[a], addresses[b]);
    });
    StatValue[] k = new StatValue[size];
    long[] a = new long[size];
    for (int i = 0; i < size; i++) {
      k[i] = keys[order[i]];
      a[i] = addresses[order[i]];
    }
    keys = k;
    addresses = a;
  }

  /**
   * Sorts the primitive entries by key then address. LSD radix sorts are stable, so sorting by address (skipped when
   * the entries already come in address order, as a build adds them) and then by key gives the (key, address)
   * order. Signed keys have their sign bit flipped so that unsigned digit order is signed order; unsigned keys and
   * addresses are sorted as they are.
   */
  private void radixSort() {
    long[] k = intKeys;
    long[] a = addresses;
    long[] k2 = new long[size];
    long[] a2 = new long[size];
    boolean ascending = true;
    for (int i = 1; i < size && ascending; i++) {
      ascending = Long.compareUnsigned(a[i - 1], a[i]) <= 0;
    }
    long[][] arrays = {k, a, k2, a2};
    if (!ascending) {
      passes(arrays, false, 0L);
    }
    passes(arrays, true, held == Held.UINT ? 0L : Long.MIN_VALUE);
    intKeys = arrays[0];
    addresses = arrays[1];
  }

  /**
   * The radix passes by key ({@code byKey}) or by address over {@code arrays} = {keys, addresses, spare keys, spare
   * addresses}; leaves the sorted entries in arrays[0] and arrays[1] (swapping with the spares as it goes).
   */
  private void passes(long[][] arrays, boolean byKey, long flip) {
    int n = size;
    int[][] counts = new int[DIGITS][BUCKETS];
    long[] by = byKey ? arrays[0] : arrays[1];
    for (int i = 0; i < n; i++) {
      long v = by[i] ^ flip;
      for (int d = 0; d < DIGITS; d++) {
        counts[d][(int) ((v >>> (d * DIGIT_BITS)) & (BUCKETS - 1))]++;
      }
    }
    for (int d = 0; d < DIGITS; d++) {
      int[] c = counts[d];
      int shift = d * DIGIT_BITS;
      long[] srcBy = byKey ? arrays[0] : arrays[1];
      if (c[(int) (((srcBy[0] ^ flip) >>> shift) & (BUCKETS - 1))] == n) {
        continue; // every entry has the same digit here
      }
      int sum = 0;
      for (int b = 0; b < BUCKETS; b++) {
        int x = c[b];
        c[b] = sum;
        sum += x;
      }
      long[] sk = arrays[0];
      long[] sa = arrays[1];
      long[] dk = arrays[2];
      long[] da = arrays[3];
      for (int i = 0; i < n; i++) {
        int pos = c[(int) (((srcBy[i] ^ flip) >>> shift) & (BUCKETS - 1))]++;
        dk[pos] = sk[i];
        da[pos] = sa[i];
      }
      arrays[0] = dk;
      arrays[1] = da;
      arrays[2] = sk;
      arrays[3] = sa;
    }
  }
}
