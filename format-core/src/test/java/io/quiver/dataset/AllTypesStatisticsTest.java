package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.file.StatValues;
import io.quiver.internal.file.TestData;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/**
 * Statistics of every supported type, written and read back from the manifest: null counts (struct members
 * null where their struct is) checked against the evaluator's {@code IS NULL} on a scan, bounds of every
 * primitive type against the least and greatest value of the written vectors, NaN counts of floats.
 */
class AllTypesStatisticsTest {
  @Test
  void everyTypeIsWrittenAndReadBack() throws IOException {
    org.apache.arrow.vector.types.pojo.Schema schema = TestData.allTypesSchema();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot data = TestData.randomBatch(schema, 300, 7, allocator);
        Dataset ds = Dataset.create(OverlayTestSupport.URI_, schema, java.util.List.of(data),
            OverlayTestSupport.options(allocator, new MemoryObjectStore(OverlayTestSupport.URI_), 64))) {
      DataFile file = ds.manifest().fragments().get(0).files().get(0);
      FileStats stats = file.stats().orElseThrow();
      assertThat(stats.rowCount()).isEqualTo(300);
      for (Field f : ds.schema().atomicFields()) {
        String path = ds.schema().pathOf(f.id());
        ColumnStats c = file.statsOf(f.id()).orElseThrow(() -> new AssertionError("no statistics for " + path));
        assertThat(c.nullCount()).as("null count of " + path).isEqualTo(count(ds, Predicate.isNull(path)));
        if (f.type() instanceof ArrowType.FloatingPoint) {
          assertThat(c.nanCount()).as("NaN count of " + path).hasValue(count(ds, Predicate.eq(path, Double.NaN)));
        } else {
          assertThat(c.nanCount()).isEmpty();
        }
        FieldVector v = f.parentId() < 0 ? data.getVector(f.name()) : null;
        if (v == null) {
          continue; // nested: counts checked above
        }
        Optional<StatValue[]> expected = bounds(v);
        assertThat(c.lower()).as("lower bound of " + path).isEqualTo(expected.map(b -> b[0]));
        assertThat(c.upper()).as("upper bound of " + path).isEqualTo(expected.map(b -> b[1]));
      }
    }
  }

  private static long count(Dataset ds, Predicate p) throws IOException {
    long n = 0;
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        n += p.evaluate(r.getVectorSchemaRoot()).cardinality();
      }
    }
    return n;
  }

  /** The least and greatest value of a top-level primitive vector, as bounds (truncated); empty without bounds. */
  private static Optional<StatValue[]> bounds(FieldVector v) {
    StatValue min = null;
    StatValue max = null;
    ArrowType t = v.getField().getType();
    for (int i = 0; i < v.getValueCount(); i++) {
      if (v.isNull(i)) {
        continue;
      }
      StatValue x = value(v, t, i);
      if (x == null) {
        if (t instanceof ArrowType.FloatingPoint) {
          continue; // NaN
        }
        return Optional.empty();
      }
      min = min == null || StatValues.compare(x, min) < 0 ? x : min;
      max = max == null || StatValues.compare(x, max) > 0 ? x : max;
    }
    if (min == null) {
      return Optional.empty();
    }
    if (min instanceof StatValue.Bytes lo && max instanceof StatValue.Bytes hi) {
      boolean utf8 = t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8;
      byte[] l = lo.value();
      byte[] h = hi.value();
      min = new StatValue.Bytes(StatValues.truncateLower(l, l.length, utf8));
      max = StatValues.truncateUpper(h, h.length, utf8).map(StatValue.Bytes::new).orElse(null);
    }
    return Optional.of(new StatValue[] {min, max});
  }

  private static StatValue value(FieldVector v, ArrowType t, int i) {
    if (t instanceof ArrowType.Int it) {
      long x = ((BaseIntVector) v).getValueAsLong(i);
      if (it.getIsSigned()) {
        return new StatValue.Int(x);
      }
      return it.getBitWidth() == 64 ? new StatValue.UInt64(x) : new StatValue.Int(x & ((1L << it.getBitWidth()) - 1));
    }
    if (t instanceof ArrowType.FloatingPoint) {
      double d = ((FloatingPointVector) v).getValueAsDouble(i);
      return Double.isNaN(d) ? null : new StatValue.Real(d);
    }
    if (t instanceof ArrowType.Bool) {
      return new StatValue.Bool(((BitVector) v).get(i) != 0);
    }
    if (t instanceof ArrowType.Decimal) {
      return new StatValue.Decimal((v instanceof DecimalVector d ? d.getObject(i) : ((Decimal256Vector) v).getObject(i))
          .unscaledValue());
    }
    if (v instanceof FixedSizeBinaryVector b) {
      return new StatValue.Bytes(b.get(i));
    }
    if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector b) {
      return new StatValue.Bytes(b.get(i));
    }
    if (v instanceof org.apache.arrow.vector.BaseLargeVariableWidthVector b) {
      return new StatValue.Bytes(b.get(i));
    }
    if (t instanceof ArrowType.Date || t instanceof ArrowType.Time || t instanceof ArrowType.Timestamp
        || t instanceof ArrowType.Duration) {
      BaseFixedWidthVector fw = (BaseFixedWidthVector) v;
      int width = fw.getTypeWidth();
      return new StatValue.Int(width == 4 ? fw.getDataBuffer().getInt((long) i * 4) : fw.getDataBuffer().getLong((long) i * 8));
    }
    return null; // intervals: no bounds
  }
}
