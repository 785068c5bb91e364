package io.quiver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.bench.data.BenchData;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/** The generated data is what the benchmarks' checks assume: deterministic, complete, the right shapes. */
class BenchDataTest {
  @Test
  void aReaderYieldsEveryRowOnceInBatchesOfTheAskedSizeAndTheScanChecksumMatches() throws Exception {
    try (RootAllocator allocator = new RootAllocator()) {
      List<Integer> sizes = new ArrayList<>();
      long checksum = 0;
      try (ArrowReader reader = BenchData.reader(allocator, BenchData.scanSchema(), 0, 20_001, 8192)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          sizes.add(root.getRowCount());
          checksum += Scans.consume(root);
          FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
          assertThat(v.getDataVector().getValueCount()).isEqualTo(root.getRowCount() * BenchData.VECTOR_DIM);
        }
      }
      assertThat(sizes).containsExactly(8192, 8192, 3617);
      assertThat(checksum).isEqualTo(Scans.expected(20_001, 4));
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  @Test
  void valuesDependOnlyOnTheRowSoTwoWritersGenerateTheSameTable() {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot whole = BenchData.batch(allocator, BenchData.wideSchema(32), 0, 100);
        VectorSchemaRoot tail = BenchData.batch(allocator, BenchData.wideSchema(32), 60, 40)) {
      assertThat(whole.getFieldVectors()).hasSize(32);
      for (int c = 0; c < 32; c++) {
        FieldVector a = whole.getVector(c);
        FieldVector b = tail.getVector(c);
        for (int r = 0; r < 40; r++) {
          assertThat(b.getObject(r)).isEqualTo(a.getObject(60 + r));
        }
      }
      assertThat(((BigIntVector) whole.getVector("id")).get(99)).isEqualTo(99);
      assertThat(BenchData.stringValue(7)).hasSize(BenchData.STRING_BYTES).isEqualTo(BenchData.stringValue(7));
    }
  }

  @Test
  void aboutOnePercentOfRowsHavePctZeroAndRandomRowsAreDistinct() {
    long hits = LongStream.range(0, 1_000_000).filter(r -> BenchData.pctValue(r) == 0).count();
    assertThat(hits).isBetween(9_000L, 11_000L);
    long[] rows = BenchData.randomRows(10_000, 1000, 7);
    assertThat(LongStream.of(rows).distinct().count()).isEqualTo(1000);
    assertThat(LongStream.of(rows).allMatch(r -> r >= 0 && r < 10_000)).isTrue();
    assertThat(BenchData.randomRows(10_000, 1000, 7)).isEqualTo(rows);
  }
}
