package io.quiver.bench.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The seeded data every benchmark feeds to Quiver and to its baseline alike: the same schema, the same
 * values, in the same batches. Values depend only on the row number and the seed, so a table written
 * twice (or by two systems) holds identical rows, and a reader can check any row it reads.
 *
 * <p>Column kinds, by name prefix: {@code id} int64 = the row number (not nullable); {@code i*} int64;
 * {@code x}/{@code f*} float64; {@code s} utf8 of 20 ASCII bytes; {@code v} fixed-size list of 128
 * float32; {@code pct} int32 in [0, 100) (row {@code r} has {@code pct == 0} for about 1% of rows, chosen
 * by a hash, so an update "where pct = 0" touches 1% of the rows spread over every fragment).
 */
public final class BenchData {
  /** Length of the fixed-size-list column {@code v}. */
  public static final int VECTOR_DIM = 128;
  /** Bytes of each {@code s} value. */
  public static final int STRING_BYTES = 20;
  /** The seed of every generated table. */
  public static final long SEED = 20261129L;

  private static final ArrowType INT64 = new ArrowType.Int(64, true);
  private static final ArrowType INT32 = new ArrowType.Int(32, true);
  private static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  private static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  private BenchData() {}

  /** Benchmark 1's table: id int64, x float64, s utf8 (~20 B), v fixed_size_list&lt;float32, 128&gt;. */
  public static Schema scanSchema() {
    Field item = new Field("item", FieldType.notNullable(FLOAT32), null);
    return new Schema(List.of(
        new Field("id", FieldType.notNullable(INT64), null),
        new Field("x", FieldType.nullable(FLOAT64), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
        new Field("v", FieldType.nullable(new ArrowType.FixedSizeList(VECTOR_DIM)), List.of(item))));
  }

  /**
   * A table of {@code columns} numeric columns: {@code id} then alternating int64 {@code i1, i3, ...}
   * and float64 {@code f2, f4, ...}.
   */
  public static Schema wideSchema(int columns) {
    List<Field> fields = new ArrayList<>();
    fields.add(new Field("id", FieldType.notNullable(INT64), null));
    for (int c = 1; c < columns; c++) {
      fields.add(c % 2 == 1
          ? new Field("i" + c, FieldType.nullable(INT64), null)
          : new Field("f" + c, FieldType.nullable(FLOAT64), null));
    }
    return new Schema(fields);
  }

  /** The update benchmark's table: id int64, pct int32, x float64, s utf8. */
  public static Schema updateSchema() {
    return new Schema(List.of(
        new Field("id", FieldType.notNullable(INT64), null),
        new Field("pct", FieldType.notNullable(INT32), null),
        new Field("x", FieldType.nullable(FLOAT64), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  }

  /** A small table (id int64, x float64) for commit benchmarks. */
  public static Schema smallSchema() {
    return new Schema(List.of(
        new Field("id", FieldType.notNullable(INT64), null),
        new Field("x", FieldType.nullable(FLOAT64), null)));
  }

  /** The float32 column the backfill benchmark adds. */
  public static Field backfillField() {
    return new Field("score", FieldType.nullable(FLOAT32), null);
  }

  /** The backfilled value of the row whose {@code id} is {@code id}. */
  public static float backfillValue(long id) {
    return (float) (id % 1000) / 8f;
  }

  /** The value of int64 column {@code column} (by position) at row {@code row}. */
  public static long longValue(int column, long row) {
    return mix(row * 31 + column) >>> 1;
  }

  /** The value of float64 column {@code column} (by position) at row {@code row}. */
  public static double doubleValue(int column, long row) {
    return (mix(row * 31 + column) >>> 11) * 0x1.0p-53 * 1000.0;
  }

  /** The {@code pct} value of row {@code row}. */
  public static int pctValue(long row) {
    return (int) Long.remainderUnsigned(mix(row ^ 0x5bd1e995L), 100);
  }

  /** Writes the 20 ASCII bytes of {@code s} at row {@code row} into {@code out}. */
  public static void stringValue(long row, byte[] out) {
    long h = mix(row + 7);
    for (int i = 0; i < STRING_BYTES; i++) {
      out[i] = (byte) ('a' + (int) Long.remainderUnsigned(h, 26));
      h = i % 10 == 9 ? mix(h) : h / 26 + i;
    }
  }

  /** The {@code s} value at row {@code row}, as a string. */
  public static String stringValue(long row) {
    byte[] out = new byte[STRING_BYTES];
    stringValue(row, out);
    return new String(out, StandardCharsets.US_ASCII);
  }

  /** Element {@code i} of the vector at row {@code row}. */
  public static float vectorValue(long row, int i) {
    return (float) ((mix(row * VECTOR_DIM + i) >>> 40) * 0x1.0p-24);
  }

  /** SplitMix64 finaliser seeded with {@link #SEED}: a fast, well-mixed, stateless hash. */
  static long mix(long x) {
    long z = x + SEED * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** {@code count} distinct row numbers in [0, rows), in random (seeded) order. */
  public static long[] randomRows(long rows, int count, long seed) {
    if (count > rows) {
      throw new IllegalArgumentException("cannot pick " + count + " distinct rows of " + rows);
    }
    SplittableRandom random = new SplittableRandom(seed);
    java.util.LinkedHashSet<Long> picked = new java.util.LinkedHashSet<>();
    while (picked.size() < count) {
      picked.add(random.nextLong(rows));
    }
    return picked.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * A reader that generates rows {@code [firstRow, firstRow + rows)} of {@code schema} in batches of
   * {@code batchRows}; the caller closes it.
   */
  public static ArrowReader reader(BufferAllocator allocator, Schema schema, long firstRow, long rows, int batchRows) {
    return new GeneratedReader(allocator, schema, firstRow, rows, batchRows);
  }

  /**
   * The batches of {@link #reader}, as the {@code Iterable} Quiver's writes take: read once and lazily, each
   * root the reader's own and valid until the next. The caller closes the reader.
   */
  public static Iterable<VectorSchemaRoot> batches(ArrowReader reader) {
    return () -> new java.util.Iterator<>() {
      private Boolean ready;

      @Override
      public boolean hasNext() {
        if (ready == null) {
          try {
            ready = reader.loadNextBatch();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
        return ready;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        ready = null;
        try {
          return reader.getVectorSchemaRoot();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
  }

  /** One batch of rows {@code [firstRow, firstRow + rows)}; the caller closes it. */
  public static VectorSchemaRoot batch(BufferAllocator allocator, Schema schema, long firstRow, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    fill(root, firstRow, rows);
    return root;
  }

  /** Fills {@code root} with rows {@code [firstRow, firstRow + rows)} by its columns' names and types. */
  public static void fill(VectorSchemaRoot root, long firstRow, int rows) {
    List<FieldVector> vectors = root.getFieldVectors();
    byte[] text = new byte[STRING_BYTES];
    for (int c = 0; c < vectors.size(); c++) {
      FieldVector vector = vectors.get(c);
      vector.setInitialCapacity(rows);
      vector.allocateNew();
      String name = vector.getName();
      if (vector instanceof BigIntVector v) {
        for (int r = 0; r < rows; r++) {
          long row = firstRow + r;
          v.set(r, name.equals("id") ? row : longValue(c, row));
        }
      } else if (vector instanceof IntVector v) {
        for (int r = 0; r < rows; r++) {
          v.set(r, pctValue(firstRow + r));
        }
      } else if (vector instanceof Float8Vector v) {
        for (int r = 0; r < rows; r++) {
          v.set(r, doubleValue(c, firstRow + r));
        }
      } else if (vector instanceof Float4Vector v) {
        for (int r = 0; r < rows; r++) {
          v.set(r, backfillValue(firstRow + r));
        }
      } else if (vector instanceof VarCharVector v) {
        for (int r = 0; r < rows; r++) {
          stringValue(firstRow + r, text);
          v.setSafe(r, text);
        }
      } else if (vector instanceof FixedSizeListVector v) {
        Float4Vector items = (Float4Vector) v.getDataVector();
        int dim = v.getListSize();
        for (int r = 0; r < rows; r++) {
          v.setNotNull(r);
          long row = firstRow + r;
          for (int i = 0; i < dim; i++) {
            items.set(r * dim + i, vectorValue(row, i));
          }
        }
        items.setValueCount(rows * dim);
      } else {
        throw new IllegalArgumentException("no generator for column " + name + " of " + vector.getField().getType());
      }
      vector.setValueCount(rows);
    }
    root.setRowCount(rows);
  }

  private static final class GeneratedReader extends ArrowReader {
    private final Schema schema;
    private final int batchRows;
    private final long end;
    private long next;

    GeneratedReader(BufferAllocator allocator, Schema schema, long firstRow, long rows, int batchRows) {
      super(allocator);
      if (batchRows < 1 || rows < 0) {
        throw new IllegalArgumentException("rows must be >= 0 and batchRows >= 1");
      }
      this.schema = schema;
      this.batchRows = batchRows;
      this.next = firstRow;
      this.end = firstRow + rows;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (next >= end) {
        return false;
      }
      int n = (int) Math.min(batchRows, end - next);
      VectorSchemaRoot root = getVectorSchemaRoot();
      root.clear();
      fill(root, next, n);
      next += n;
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
