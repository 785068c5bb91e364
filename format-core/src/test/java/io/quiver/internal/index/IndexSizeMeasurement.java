package io.quiver.internal.index;

import io.quiver.dataset.RowAddress;
import io.quiver.manifest.ScalarIndex;
import io.quiver.manifest.StatValue;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: prints the bytes a row and build times of btree segments, compact against QVXP pages, and the radix
 * sort against the comparison quicksort it replaced, for 1M and 10M distinct int64 keys (a random permutation of
 * the row numbers over 1M-row fragments, as benchmarks' IndexBench). Run with {@code -Dquiver.measureIndex=true
 * -Dtest=IndexSizeMeasurement}; nothing is asserted.
 */
@EnabledIfSystemProperty(named = "quiver.measureIndex", matches = "true")
class IndexSizeMeasurement {
  private static final int FRAGMENT_ROWS = 1_000_000;

  @Test
  void measure() {
    for (int n : new int[] {1_000_000, 10_000_000, 1_000_000, 10_000_000}) { // twice: the second round is warm
      measure(n);
    }
    bitmap(10_000_000, 100);
  }

  private static int[] permutation(int n) {
    Random r = new Random(n);
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  private static void measure(int n) {
    int[] perm = permutation(n);
    IndexEntries entries = new IndexEntries();
    for (int i = 0; i < n; i++) {
      entries.add(new StatValue.Int(perm[i]), RowAddress.of(i / FRAGMENT_ROWS, i % FRAGMENT_ROWS));
    }
    long[] keys = new long[n];
    long[] addresses = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = perm[i];
      addresses[i] = RowAddress.of(i / FRAGMENT_ROWS, i % FRAGMENT_ROWS);
    }
    long t0 = System.nanoTime();
    new OldQuicksort(keys, addresses).sort(0, n - 1);
    long t1 = System.nanoTime();
    entries.sort();
    long t2 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      if (entries.rawKey(i) != keys[i] || entries.address(i) != addresses[i]) {
        throw new AssertionError("radix and quicksort differ at " + i);
      }
    }
    long t3 = System.nanoTime();
    SegmentFile.Written legacy = SegmentFile.write(ScalarIndex.Kind.BTREE, 1, entries, Map.of(),
        SegmentFile.BtreeEncoding.LEGACY);
    long t4 = System.nanoTime();
    SegmentFile.Written compact = SegmentFile.write(ScalarIndex.Kind.BTREE, 1, entries, Map.of(),
        SegmentFile.BtreeEncoding.COMPACT);
    long t5 = System.nanoTime();
    // One page decoded, as a point lookup does.
    int pageLength = 0;
    long decodeNanos = Long.MAX_VALUE;
    for (int rep = 0; rep < 50; rep++) {
      byte[] page = Arrays.copyOfRange(compact.bytes(), 0, firstPageLength(compact));
      pageLength = page.length;
      long d0 = System.nanoTime();
      SegmentFile.decodePage(page, "m", 0);
      decodeNanos = Math.min(decodeNanos, System.nanoTime() - d0);
    }
    System.out.printf("rows=%,d sort: quicksort %d ms, radix %d ms | write: QVXP %d ms, QVXC %d ms%n", n,
        (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t4 - t3) / 1_000_000, (t5 - t4) / 1_000_000);
    System.out.printf("rows=%,d bytes: QVXP %,d (%.2f B/row), QVXC %,d (%.2f B/row), footer %,d B;"
        + " first page %,d B, decoded in %d us%n", n, legacy.bytes().length,
        (double) legacy.bytes().length / n, compact.bytes().length, (double) compact.bytes().length / n,
        compact.footerLength(), pageLength, decodeNanos / 1000);
  }

  private static int firstPageLength(SegmentFile.Written w) {
    return (int) io.quiver.internal.codec.IndexCodec.decodeFooter(Arrays.copyOfRange(w.bytes(),
        (int) w.footerOffset(), w.bytes().length), "m").getPages(0).getLength();
  }

  private static void bitmap(int n, int values) {
    Random r = new Random(1);
    IndexEntries entries = new IndexEntries();
    for (int i = 0; i < n; i++) {
      entries.add(new StatValue.Int(r.nextInt(values)), RowAddress.of(i / FRAGMENT_ROWS, i % FRAGMENT_ROWS));
    }
    entries.sort();
    SegmentFile.Written w = SegmentFile.write(ScalarIndex.Kind.BITMAP, 1, entries, Map.of());
    var footer = io.quiver.internal.codec.IndexCodec.decodeFooter(Arrays.copyOfRange(w.bytes(),
        (int) w.footerOffset(), w.bytes().length), "m");
    long max = footer.getPagesList().stream().mapToLong(p -> p.getLength()).max().orElse(0);
    System.out.printf("bitmap rows=%,d values=%d: %,d B, %d pages, largest page %,d B%n", n, values,
        w.bytes().length, footer.getPagesCount(), max);
  }

  /** The comparison quicksort IndexEntries used before the radix sort, for the before/after figure. */
  private record OldQuicksort(long[] intKeys, long[] addresses) {
    private int compareAt(int i, int j) {
      int c = Long.compare(intKeys[i], intKeys[j]);
      return c != 0 ? c : Long.compareUnsigned(addresses[i], addresses[j]);
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

    void sort(int lo, int hi) {
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
  }
}
