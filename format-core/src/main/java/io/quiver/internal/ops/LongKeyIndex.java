package io.quiver.internal.ops;

import java.util.Arrays;

/**
 * Source rows by an integer key, for joining a table's rows with a merge source: an open-addressing hash table
 * of primitive longs (linear probing, load at most one half), so that the lookup made for every table row a merge
 * reads costs one hash and, for the usual key the source does not hold, one or two probes, with no boxing. Keys
 * are distinct (the source's keys are checked for duplicates before). Immutable once built; safe to share.
 */
final class LongKeyIndex {
  private static final int NONE = -1;

  private final long[] keys;
  private final int[] rows; // NONE marks an empty slot
  private final int mask;

  /** The index of {@code keys[i] -> rows[i]}; the keys must be distinct. */
  LongKeyIndex(long[] keys, int[] rows) {
    int capacity = Integer.highestOneBit(Math.max(4, keys.length) * 2 - 1) << 1;
    this.keys = new long[capacity];
    this.rows = new int[capacity];
    this.mask = capacity - 1;
    Arrays.fill(this.rows, NONE);
    for (int i = 0; i < keys.length; i++) {
      int slot = slot(keys[i]);
      while (this.rows[slot] != NONE) {
        if (this.keys[slot] == keys[i]) {
          throw new IllegalArgumentException("key " + keys[i] + " is given twice");
        }
        slot = (slot + 1) & mask;
      }
      this.keys[slot] = keys[i];
      this.rows[slot] = rows[i];
    }
  }

  private int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing: the high bits are well mixed
    return (int) (h >>> 32 ^ h) & mask;
  }

  /** The row holding {@code key}, or -1. */
  int get(long key) {
    int slot = slot(key);
    while (true) {
      int row = rows[slot];
      if (row == NONE || keys[slot] == key) {
        return row;
      }
      slot = (slot + 1) & mask;
    }
  }
}
