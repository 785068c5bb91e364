package io.quiver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** IndexBench's key column must be a permutation of the row numbers, and its inverse must find a key's row. */
class IndexBenchTest {
  @Test
  void thePermutationIsABijectionWithAnInverseAndScattersNeighbours() {
    for (long n : new long[] {2, 3, 1000, 65_536, 100_003}) {
      IndexBench.Permutation p = new IndexBench.Permutation(n);
      BitSet seen = new BitSet();
      long inPlace = 0;
      for (long r = 0; r < n; r++) {
        long k = p.apply(r);
        assertThat(k).isBetween(0L, n - 1);
        assertThat(seen.get((int) k)).as("key %d twice (n=%d)", k, n).isFalse();
        seen.set((int) k);
        assertThat(p.invert(k)).isEqualTo(r);
        inPlace += k == r ? 1 : 0;
      }
      assertThat(seen.cardinality()).isEqualTo((int) n);
      if (n >= 1000) {
        assertThat(inPlace).as("fixed points of n=%d", n).isLessThan(n / 100);
      }
    }
    // Unclustered: the keys of 8,192 consecutive rows of 10M span nearly the whole range.
    IndexBench.Permutation p = new IndexBench.Permutation(10_000_000);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long r = 0; r < 8192; r++) {
      min = Math.min(min, p.apply(r));
      max = Math.max(max, p.apply(r));
    }
    assertThat(max - min).isGreaterThan(9_900_000L);
  }
}
