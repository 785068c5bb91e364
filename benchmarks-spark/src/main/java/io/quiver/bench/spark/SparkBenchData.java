package io.quiver.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lpad;
import static org.apache.spark.sql.functions.pmod;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * The table every Spark benchmark reads or writes, the same for Quiver and for Parquet: four columns that
 * depend only on the row number {@code id}.
 *
 * <ul>
 *   <li>{@code id} int64, the row number, not null;
 *   <li>{@code value} float64, {@code pmod(id * 2654435761, 1000003) / 1000};
 *   <li>{@code name} utf8 of 10 ASCII bytes, {@code "n"} and {@code pmod(id * 7919, 10^9)} in 9 digits;
 *   <li>{@code category} int32, {@code id % 16}.
 * </ul>
 *
 * <p>The same values come from two places: {@link #columns()}, Spark expressions over {@code spark.range}'s
 * {@code id} (the Parquet tables and the append benchmark's input), and the Java functions below (the
 * Quiver tables, written through Quiver's own API so that their fragment layout is chosen here and not by
 * the write path under test). A harness test checks that the two agree.
 */
public final class SparkBenchData {
  /** Bytes of each {@code name} value. */
  public static final int NAME_BYTES = 10;
  /** Rows per generated Arrow batch when writing a Quiver table. */
  static final int BATCH_ROWS = 64 * 1024;

  private static final long VALUE_MULTIPLIER = 2654435761L;
  private static final long VALUE_MODULUS = 1000003L;
  private static final long NAME_MULTIPLIER = 7919L;
  private static final long NAME_MODULUS = 1_000_000_000L;

  private SparkBenchData() {}

  /** The table's Arrow schema, as Quiver stores it. */
  public static Schema schema() {
    return new Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("value", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
        new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
        new Field("category", FieldType.nullable(new ArrowType.Int(32, true)), null)));
  }

  /** {@code value} of row {@code id}. */
  public static double value(long id) {
    return Math.floorMod(id * VALUE_MULTIPLIER, VALUE_MODULUS) / 1000.0;
  }

  /** {@code category} of row {@code id}. */
  public static int category(long id) {
    return (int) (id % 16);
  }

  /** {@code name} of row {@code id}, written as its 10 ASCII bytes into {@code out}. */
  public static void name(long id, byte[] out) {
    long n = Math.floorMod(id * NAME_MULTIPLIER, NAME_MODULUS);
    out[0] = 'n';
    for (int i = NAME_BYTES - 1; i >= 1; i--) {
      out[i] = (byte) ('0' + (int) (n % 10));
      n /= 10;
    }
  }

  /** {@code name} of row {@code id}. */
  public static String name(long id) {
    byte[] out = new byte[NAME_BYTES];
    name(id, out);
    return new String(out, java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** The four columns as Spark expressions over a column {@code id} of type bigint (what {@code spark.range} gives). */
  public static Column[] columns() {
    return new Column[] {
        col("id"),
        pmod(col("id").multiply(lit(VALUE_MULTIPLIER)), lit(VALUE_MODULUS)).cast(DataTypes.DoubleType)
            .divide(lit(1000.0)).as("value"),
        concat(lit("n"), lpad(pmod(col("id").multiply(lit(NAME_MULTIPLIER)), lit(NAME_MODULUS))
            .cast(DataTypes.StringType), NAME_BYTES - 1, "0")).as("name"),
        pmod(col("id"), lit(16L)).cast(DataTypes.IntegerType).as("category")};
  }

  /** Rows {@code [0, rows)} as a DataFrame of {@code partitions} partitions, each a contiguous range of ids. */
  public static org.apache.spark.sql.Dataset<Row> frame(SparkSession spark, long rows, int partitions) {
    return spark.range(0, rows, 1, partitions).select(columns());
  }

  /** Writes rows {@code [0, rows)} as Parquet into {@code dir}: {@code files} files, each a contiguous id range. */
  public static void writeParquet(SparkSession spark, Path dir, long rows, int files) {
    frame(spark, rows, files).write().parquet(dir.toUri().toString());
  }

  /**
   * Creates a Quiver table of rows {@code [0, rows)} at {@code dir} through Quiver's Java API, in fragments of
   * {@code rowsPerFragment} rows (one commit).
   */
  public static void writeQuiver(Path dir, long rows, long rowsPerFragment) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator)) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).maxRowsPerFragment(rowsPerFragment).build();
      try (Dataset ds = Dataset.create(uri(dir), schema(), () -> batches(root, rows), options)) {
        if (ds.countRows() != rows) {
          throw new IllegalStateException("wrote " + ds.countRows() + " rows to " + dir + ", expected " + rows);
        }
      }
    }
  }

  /** The URI Spark and Quiver are given for a table directory. */
  public static String uri(Path dir) {
    return dir.toUri().toString();
  }

  /** Fills {@code root} with rows {@code [0, rows)}, one batch at a time (each valid until the next). */
  private static Iterator<VectorSchemaRoot> batches(VectorSchemaRoot root, long rows) {
    return new Iterator<>() {
      private long next;

      @Override
      public boolean hasNext() {
        return next < rows;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int n = (int) Math.min(BATCH_ROWS, rows - next);
        fill(root, next, n);
        next += n;
        return root;
      }
    };
  }

  /** Sets {@code root} to rows {@code [first, first + n)}. */
  static void fill(VectorSchemaRoot root, long first, int n) {
    BigIntVector ids = (BigIntVector) root.getVector("id");
    Float8Vector values = (Float8Vector) root.getVector("value");
    VarCharVector names = (VarCharVector) root.getVector("name");
    IntVector categories = (IntVector) root.getVector("category");
    ids.allocateNew(n);
    values.allocateNew(n);
    names.allocateNew((long) n * NAME_BYTES, n);
    categories.allocateNew(n);
    byte[] name = new byte[NAME_BYTES];
    for (int i = 0; i < n; i++) {
      long id = first + i;
      ids.set(i, id);
      values.set(i, value(id));
      name(id, name);
      names.setSafe(i, name);
      categories.set(i, category(id));
    }
    root.setRowCount(n);
  }
}
