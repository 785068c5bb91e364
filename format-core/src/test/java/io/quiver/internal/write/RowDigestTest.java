package io.quiver.internal.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.SampleTable;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.junit.jupiter.api.Test;

/** The rows digest depends on the multiset of row values only. */
class RowDigestTest {
  private static final Schema SCHEMA = Schema.fromArrow(SampleTable.SCHEMA, new FieldIdAllocator(0));

  private static String digest(RootAllocator allocator, long[][] ranges) {
    RowDigest d = new RowDigest();
    for (long[] r : ranges) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, r[0], (int) r[1])) {
        d.add(b);
      }
    }
    return d.hex("append", SCHEMA);
  }

  @Test
  void sameRowsInAnyBatchesOrOrderGiveTheSameDigestOtherRowsAnother() {
    try (RootAllocator allocator = new RootAllocator()) {
      String whole = digest(allocator, new long[][] {{0, 100}});
      assertThat(digest(allocator, new long[][]{{0, 37}, {37, 63}})).isEqualTo(whole);
      assertThat(digest(allocator, new long[][]{{50, 50}, {0, 50}})).isEqualTo(whole);
      RowDigest a = new RowDigest();
      RowDigest b = new RowDigest();
      try (VectorSchemaRoot x = SampleTable.batch(allocator, 0, 60); VectorSchemaRoot y = SampleTable.batch(allocator, 60, 40)) {
        a.add(x);
        b.add(y);
      }
      a.add(b);
      assertThat(a.hex("append", SCHEMA)).as("partial digests add up").isEqualTo(whole);
      assertThat(digest(allocator, new long[][]{{0, 99}})).isNotEqualTo(whole);
      assertThat(digest(allocator, new long[][]{{1, 100}})).isNotEqualTo(whole);
      assertThat(digest(allocator, new long[][]{{0, 100}, {5, 1}})).as("a duplicated row counts").isNotEqualTo(whole);
      RowDigest same = new RowDigest();
      try (VectorSchemaRoot x = SampleTable.batch(allocator, 0, 100)) {
        same.add(x);
      }
      assertThat(same.hex("overwrite", SCHEMA)).as("the kind is part of the digest").isNotEqualTo(whole);
    }
  }

  @Test
  void valuesUnderANullStructAreNotPartOfTheRow() {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot x = SampleTable.batch(allocator, 0, 20);
        VectorSchemaRoot y = SampleTable.batch(allocator, 0, 20)) {
      StructVector s = (StructVector) y.getVector("s");
      IntVector member = (IntVector) s.getChild("x");
      int changed = 0;
      for (int i = 0; i < 20; i++) {
        if (s.isNull(i)) {
          member.setSafe(i, 12345 + i); // garbage under a null struct
          changed++;
        }
      }
      assertThat(changed).as("the sample has null structs").isNotEqualTo(0);
      RowDigest dx = new RowDigest();
      dx.add(x);
      RowDigest dy = new RowDigest();
      dy.add(y);
      assertThat(dy.hex("append", SCHEMA)).isEqualTo(dx.hex("append", SCHEMA));
      member.setSafe(firstNonNull(s), 777);
      RowDigest dz = new RowDigest();
      dz.add(y);
      assertThat(dz.hex("append", SCHEMA)).isNotEqualTo(dx.hex("append", SCHEMA));
    }
  }

  private static int firstNonNull(StructVector s) {
    for (int i = 0; ; i++) {
      if (!s.isNull(i)) {
        return i;
      }
    }
  }
}
