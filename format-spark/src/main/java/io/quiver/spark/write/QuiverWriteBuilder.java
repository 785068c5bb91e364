package io.quiver.spark.write;

import io.quiver.dataset.WriteMode;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.spark.QuiverTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Batch and streaming writes to a Quiver table: appends, and full overwrites ({@code INSERT OVERWRITE},
 * {@code mode("overwrite")}, {@code writeTo(...).overwrite(lit(true))}, truncate), and overwrites by a filter
 * Quiver evaluates (one row-delta commit; see {@link #overwrite}). The write's rows must have the table's columns (Spark checks this for catalog tables too);
 * otherwise {@link #build()} throws a {@link SchemaMismatchException} listing the expected and found columns.
 *
 * <p>Write options: {@value WriteSizes#ROWS_PER_BATCH}, {@value WriteSizes#ROWS_PER_FRAGMENT}, {@value
 * WriteSizes#FRAGMENT_BYTES} (see {@link WriteSizes}).
 */
public final class QuiverWriteBuilder implements WriteBuilder, SupportsOverwriteV2 {
  private final QuiverTable table;
  private final LogicalWriteInfo info;
  private WriteMode mode = WriteMode.APPEND;
  private java.util.Optional<io.quiver.predicate.Predicate> where = java.util.Optional.empty();

  public QuiverWriteBuilder(QuiverTable table, LogicalWriteInfo info) {
    this.table = table;
    this.info = info;
  }

  @Override
  public WriteBuilder truncate() {
    mode = WriteMode.OVERWRITE;
    where = java.util.Optional.empty();
    return this;
  }

  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    // Accepted here so that overwrite() can refuse with the reason rather than Spark's generic message.
    return true;
  }

  /**
   * An overwrite by a filter ({@code INSERT OVERWRITE … WHERE}, {@code overwrite(condition)}): the rows the
   * filter matches at the loaded version are deleted and the written rows added, in ONE commit (a row delta,
   * docs/spark.md). The filter must be one Quiver evaluates (comparisons, IN, IS NULL, AND, OR, NOT over
   * columns); another is refused with the reason.
   */
  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    List<io.quiver.predicate.Predicate> converted = new ArrayList<>();
    for (Predicate p : predicates) {
      if (p instanceof AlwaysTrue) {
        continue;
      }
      converted.add(io.quiver.spark.read.SparkPredicates.toQuiver(p, table.schema(), table.arrowSchema())
          .orElseThrow(() -> new InvalidArgumentException("Quiver table " + table.name() + " cannot be"
              + " overwritten WHERE " + Arrays.toString(predicates) + ": the condition " + p + " is not one Quiver"
              + " evaluates (comparisons, IN, IS NULL, AND, OR, NOT over columns and constants). Overwrite the"
              + " whole table, MERGE INTO it, or DELETE FROM … WHERE and then append (two commits)")));
    }
    if (converted.isEmpty()) {
      return truncate();
    }
    where = java.util.Optional.of(converted.size() == 1 ? converted.get(0) : io.quiver.predicate.Predicate.and(converted));
    mode = WriteMode.OVERWRITE;
    return this;
  }

  @Override
  public Write build() {
    if (!table.isLatest()) {
      throw new InvalidArgumentException("Quiver table " + table.name() + " was loaded at version "
          + table.quiverVersion() + " for time travel, which is read-only; write to the table without VERSION AS OF"
          + " / TIMESTAMP AS OF / versionAsOf");
    }
    checkSchema(table, info.schema());
    WriteSizes sizes = WriteSizes.from(info.options());
    WriteMode writeMode = mode;
    java.util.Optional<io.quiver.predicate.Predicate> overwriteWhere = where;
    return new Write() {
      @Override
      public String description() {
        return "Quiver " + writeMode.name().toLowerCase(java.util.Locale.ROOT) + " to " + table.name();
      }

      @Override
      public BatchWrite toBatch() {
        return new QuiverBatchWrite(table.ref(), table.quiverVersion(), table.arrowSchema(), sizes, writeMode,
            info.queryId(), overwriteWhere);
      }

      @Override
      public StreamingWrite toStreaming() {
        if (writeMode != WriteMode.APPEND) {
          throw new InvalidArgumentException("Quiver's streaming sink supports the append output mode only:"
              + " complete mode would replace the whole table every micro-batch. Use outputMode(\"append\"), or"
              + " write each batch yourself with foreachBatch");
        }
        return new QuiverStreamingWrite(table.ref(), table.quiverVersion(), table.arrowSchema(), sizes,
            info.queryId());
      }
    };
  }

  /** Throws a {@link SchemaMismatchException} unless {@code found} has the table's columns, in its order. */
  static void checkSchema(QuiverTable table, StructType found) {
    StructType expected = table.schema();
    boolean ok = expected.fields().length == found.fields().length;
    for (int i = 0; ok && i < expected.fields().length; i++) {
      ok = expected.fields()[i].name().equalsIgnoreCase(found.fields()[i].name())
          && compatible(expected.fields()[i].dataType(), found.fields()[i].dataType());
    }
    if (!ok) {
      throw new SchemaMismatchException("cannot write to Quiver table " + table.name() + ": the rows' columns do not"
          + " match the table's. Expected columns: " + columns(expected) + "; found: " + columns(found)
          + ". Select the table's columns in its order (with casts), or change the table first (ALTER TABLE)");
    }
  }

  private static List<String> columns(StructType s) {
    List<String> out = new ArrayList<>();
    for (StructField f : s.fields()) {
      out.add(f.name() + " " + f.dataType().sql() + (f.nullable() ? "" : " NOT NULL"));
    }
    return out;
  }

  /** Same types, names of struct members compared case-insensitively, nullability left to the row check. */
  private static boolean compatible(DataType expected, DataType found) {
    if (expected instanceof StructType e) {
      if (!(found instanceof StructType f) || e.fields().length != f.fields().length) {
        return false;
      }
      for (int i = 0; i < e.fields().length; i++) {
        if (!e.fields()[i].name().equalsIgnoreCase(f.fields()[i].name())
            || !compatible(e.fields()[i].dataType(), f.fields()[i].dataType())) {
          return false;
        }
      }
      return true;
    }
    if (expected instanceof ArrayType e) {
      return found instanceof ArrayType f && compatible(e.elementType(), f.elementType());
    }
    if (expected instanceof MapType e) {
      return found instanceof MapType f && compatible(e.keyType(), f.keyType())
          && compatible(e.valueType(), f.valueType());
    }
    if (expected instanceof StringType) {
      return found instanceof StringType;
    }
    return expected.equals(found);
  }
}
