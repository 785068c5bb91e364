package io.quiver.internal.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The merge source's key index answers exactly what a map from key to row would. */
class LongKeyIndexTest {
  @Test
  void everyKeyFindsItsRowAndNoOtherValueFindsOne() {
    SplittableRandom random = new SplittableRandom(42);
    for (int n : new int[] {0, 1, 3, 4, 5, 1000, 100_000}) {
      Map<Long, Integer> want = new HashMap<>();
      long[] keys = new long[n];
      int[] rows = new int[n];
      for (int i = 0; i < n; i++) {
        long k;
        do {
          k = switch (i % 4) {
            case 0 -> random.nextLong();
            case 1 -> i * 200L; // clustered keys, as merge sources often are
            case 2 -> -i;
            default -> i % 8 == 3 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i;
          };
        } while (want.containsKey(k));
        keys[i] = k;
        rows[i] = i * 3;
        want.put(k, i * 3);
      }
      LongKeyIndex index = new LongKeyIndex(keys, rows);
      want.forEach((k, row) -> assertThat(index.get(k)).isEqualTo(row));
      for (int probe = 0; probe < 20_000; probe++) {
        long k = probe % 2 == 0 ? random.nextLong() : probe * 200L + 1;
        assertThat(index.get(k)).isEqualTo(want.getOrDefault(k, -1));
      }
    }
  }

  @Test
  void aRepeatedKeyIsRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> new LongKeyIndex(new long[] {5, 7, 5}, new int[] {0, 1, 2}))
        .withMessageContaining("key 5 is given twice");
  }
}
