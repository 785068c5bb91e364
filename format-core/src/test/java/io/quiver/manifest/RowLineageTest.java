package io.quiver.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link RowLineage}: runs joined as they are built, lookups by offset, and the transformations commits apply. */
class RowLineageTest {
  /** A lineage of {@code rows} rows in random runs, and its per-row values. */
  private static RowLineage random(Random r, int rows, long[][] values) {
    RowLineage.Builder b = new RowLineage.Builder();
    long id = r.nextInt(1000);
    for (int i = 0; i < rows; i++) {
      if (r.nextInt(5) == 0) {
        id += 1 + r.nextInt(50); // a gap: a new id run
      }
      long created = 1 + r.nextInt(3);
      long updated = created + r.nextInt(2);
      b.add(id, created, updated);
      values[i] = new long[] {id, created, updated};
      id++;
    }
    return b.build();
  }

  @Test
  void runsJoinAndEveryLookupAgreesWithTheRowsBuilt() {
    Random r = new Random(42);
    for (int round = 0; round < 50; round++) {
      int rows = 1 + r.nextInt(300);
      long[][] values = new long[rows][];
      RowLineage l = random(r, rows, values);
      assertThat(l.rows()).isEqualTo(rows);
      long[] offsets = new long[rows];
      for (int i = 0; i < rows; i++) {
        offsets[i] = i;
        assertThat(new long[] {l.rowId(i), l.createdAt(i), l.updatedAt(i)}).isEqualTo(values[i]);
      }
      long[] ids = new long[rows];
      long[] created = new long[rows];
      long[] updated = new long[rows];
      l.fill(offsets, rows, ids, created, updated);
      for (int i = 0; i < rows; i++) {
        assertThat(new long[] {ids[i], created[i], updated[i]}).isEqualTo(values[i]);
      }
      // select, slice and concat keep each row's values
      RowLineage evens = l.select(o -> o % 2 == 0);
      for (int i = 0; i < evens.rows(); i++) {
        assertThat(evens.rowId(i)).isEqualTo(values[2 * i][0]);
        assertThat(evens.updatedAt(i)).isEqualTo(values[2 * i][2]);
      }
      int cut = rows / 2;
      RowLineage joined = RowLineage.concat(List.of(l.slice(0, cut), l.slice(cut, rows)));
      assertThat(joined).isEqualTo(l);
      assertThat(RowLineage.of(l.idRuns(), l.createdRuns(), l.updatedRuns())).isEqualTo(l);
    }
  }

  @Test
  void freshRunsResolveToConsecutiveIdsAndTheCommitsVersion() {
    RowLineage.Builder b = new RowLineage.Builder();
    b.add(7, 2, 2).add(8, 2, 3);
    RowLineage carried = b.build();
    RowLineage tx = RowLineage.concat(List.of(RowLineage.fresh(3), carried, RowLineage.fresh(2)));
    assertThat(tx.hasFresh()).isTrue();
    assertThat(tx.freshIds()).isEqualTo(5);
    RowLineage resolved = tx.resolve(100, 9);
    assertThat(resolved.hasFresh()).isFalse();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < resolved.rows(); i++) {
      ids.add(resolved.rowId(i));
    }
    assertThat(ids).containsExactly(100L, 101L, 102L, 7L, 8L, 103L, 104L);
    assertThat(resolved.createdAt(0)).isEqualTo(9);
    assertThat(resolved.createdAt(3)).isEqualTo(2);
    assertThat(resolved.updatedAt(4)).isEqualTo(3);
    RowLineage stamped = resolved.updatedBy(o -> o == 3, 10);
    assertThat(stamped.updatedAt(3)).isEqualTo(10);
    assertThat(stamped.updatedAt(4)).isEqualTo(3);
    assertThat(stamped.rowId(3)).isEqualTo(7);
    assertThat(resolved.updatedBy(11).updatedRuns()).containsExactly(11, 7);
  }

  @Test
  void runsThatDoNotCoverTheSameRowsAreRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> RowLineage.of(new long[] {0, 5}, new long[] {1, 4},
        new long[] {1, 5})).withMessageContaining("covers 5 rows by id, 4 by created-at version");
    assertThatIllegalArgumentException().isThrownBy(() -> RowLineage.of(new long[] {0, 0}, new long[0], new long[0]))
        .withMessageContaining("counts must be positive");
    assertThatIllegalArgumentException().isThrownBy(() -> RowLineage.of(new long[] {0}, new long[0], new long[0]))
        .withMessageContaining("pairs");
    assertThatIllegalArgumentException().isThrownBy(() -> RowLineage.of(new long[] {-5, 1}, new long[] {1, 1},
        new long[] {1, 1})).withMessageContaining("ids are >= 0");
  }
}
