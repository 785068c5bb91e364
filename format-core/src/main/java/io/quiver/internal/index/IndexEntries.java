package io.quiver.internal.index;

import io.quiver.internal.file.StatValues;
import io.quiver.manifest.StatValue;
import java.util.Arrays;

/**
 * (key, row address) pairs collected for one index segment, sorted by key then address. Integer-like keys (the
 * common case: integers, dates, timestamps) are held in primitive arrays; other kinds as objects.
 */
final class IndexEntries {
  private long[] intKeys = new long[1024];
  private StatValue[] keys;
  private long[] addresses = new long[1024];
  private int size;
  private boolean allInts = true;

  void add(StatValue key, long address) {
    if (size == addresses.length) {
      addresses = Arrays.copyOf(addresses, size * 2);
      if (allInts) {
        intKeys = Arrays.copyOf(intKeys, size * 2);
      } else {
        keys = Arrays.copyOf(keys, size * 2);
      }
    }
    if (allInts && !(key instanceof StatValue.Int)) {
      keys = new StatValue[addresses.length];
      for (int i = 0; i < size; i++) {
        keys[i] = new StatValue.Int(intKeys[i]);
      }
      intKeys = null;
      allInts = false;
    }
    if (allInts) {
      intKeys[size] = ((StatValue.Int) key).value();
    } else {
      keys[size] = key;
    }
    addresses[size++] = address;
  }

  int size() {
    return size;
  }

  StatValue key(int i) {
    return allInts ? new StatValue.Int(intKeys[i]) : keys[i];
  }

  long address(int i) {
    return addresses[i];
  }

  /** Whether entries i and j hold the same key. */
  boolean sameKey(int i, int j) {
    return allInts ? intKeys[i] == intKeys[j] : StatValues.compare(keys[i], keys[j]) == 0;
  }

  void sort() {
    if (allInts) {
      sortInts(0, size - 1);
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

  private int compareAt(int i, int j) {
    int c = Long.compare(intKeys[i], intKeys[j]);
    return c != 0 ? c : Long.compareUnsigned(addresses[i], addresses[j]);
  }

  /** Iterative quicksort of the parallel arrays (median of three, insertion sort for short runs). */
  private void sortInts(int lo, int hi) {
    int[] stack = new int[128];
    int top = 0;
    stack[top++] = lo;
    stack[top++] = hi;
    while (top > 0) {
      hi = stack[--top];
      lo = stack[--top];
      while (hi - lo > 16) {
        int mid = (lo + hi) >>> 1;
        if (compareAt(mid, lo) < 0) {
          swap(mid, lo);
        }
        if (compareAt(hi, lo) < 0) {
          swap(hi, lo);
        }
        if (compareAt(hi, mid) < 0) {
          swap(hi, mid);
        }
        long pk = intKeys[mid];
        long pa = addresses[mid];
        int i = lo;
        int j = hi;
        while (i <= j) {
          while (cmp(i, pk, pa) < 0) {
            i++;
          }
          while (cmp(j, pk, pa) > 0) {
            j--;
          }
          if (i <= j) {
            swap(i++, j--);
          }
        }
        // Recurse (by the stack) into the larger part, loop on the smaller: the stack stays O(log n).
        if (j - lo > hi - i) {
          stack[top++] = lo;
          stack[top++] = j;
          lo = i;
        } else {
          stack[top++] = i;
          stack[top++] = hi;
          hi = j;
        }
      }
      for (int i = lo + 1; i <= hi; i++) {
        for (int j = i; j > lo && compareAt(j, j - 1) < 0; j--) {
          swap(j, j - 1);
        }
      }
    }
  }

  private int cmp(int i, long pk, long pa) {
    int c = Long.compare(intKeys[i], pk);
    return c != 0 ? c : Long.compareUnsigned(addresses[i], pa);
  }

  private void swap(int i, int j) {
    long k = intKeys[i];
    intKeys[i] = intKeys[j];
    intKeys[j] = k;
    long a = addresses[i];
    addresses[i] = addresses[j];
    addresses[j] = a;
  }
}
