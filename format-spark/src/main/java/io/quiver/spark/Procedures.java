package io.quiver.spark;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.exceptions.InvalidArgumentException;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The catalog's stored procedures, in namespace {@code system}: the distributed operations as SQL.
 *
 * <pre>
 * CALL quiver.system.compact(table => 'db.events')
 * CALL quiver.system.compact(table => 'db.events', target_rows_per_fragment => 1000000)
 * CALL quiver.system.add_column(table => 'db.readings', column => 'fahrenheit', expression => 'celsius * 9 / 5 + 32')
 * CALL quiver.system.replace_column(table => 'db.readings', column => 'label', expression => 'upper(label)')
 * </pre>
 *
 * <p>{@code table} is a table of this catalog ({@code namespace.name}) or a URI. Each returns one row:
 * compact {@code (version, fragments_removed, fragments_added, rows_rewritten)}, the column procedures
 * {@code (version, fragments, attempts)} — see {@link QuiverSpark#compact} and {@link Backfill}.
 */
final class Procedures {
  private Procedures() {}

  static final List<String> NAMES = List.of("compact", "add_column", "replace_column");

  static UnboundProcedure load(QuiverCatalog catalog, Identifier ident) {
    if (ident.namespace().length != 1 || !ident.namespace()[0].equals("system") || !NAMES.contains(ident.name())) {
      return null;
    }
    return switch (ident.name()) {
      case "compact" -> new Proc(catalog, "compact", "compacts a table with one Spark task per group and one commit",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("target_rows_per_fragment", DataTypes.LongType)
                  .defaultValue(Long.toString(CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT)).build()},
          new StructType().add("version", DataTypes.LongType).add("fragments_removed", DataTypes.IntegerType)
              .add("fragments_added", DataTypes.IntegerType).add("rows_rewritten", DataTypes.LongType));
      default -> new Proc(catalog, ident.name(), (ident.name().equals("add_column") ? "adds a column" : "replaces a"
          + " column's values") + " computed by a SQL expression over the table's columns, staged per fragment on"
          + " the executors and committed once",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("column", DataTypes.StringType).build(),
              ProcedureParameter.in("expression", DataTypes.StringType).build(),
              ProcedureParameter.in("max_attempts", DataTypes.IntegerType).defaultValue("3").build()},
          new StructType().add("version", DataTypes.LongType).add("fragments", DataTypes.IntegerType)
              .add("attempts", DataTypes.IntegerType));
    };
  }

  private record Proc(QuiverCatalog catalog, String name, String description, ProcedureParameter[] parameters,
      StructType result) implements UnboundProcedure, BoundProcedure {
    @Override
    public BoundProcedure bind(StructType inputType) {
      return this;
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow input) {
      for (int i = 0; i < parameters.length; i++) {
        if (input.isNullAt(i)) {
          throw new InvalidArgumentException("CALL " + catalog.name() + ".system." + name + ": argument '"
              + parameters[i].name() + "' must not be null");
        }
      }
      TableRef ref = catalog.resolve(string(input, 0));
      SparkSession spark = SparkSession.active();
      InternalRow row;
      if (name.equals("compact")) {
        CompactionResult r = DistributedCompactionJob.run(spark, ref,
            CompactionOptions.defaults().withTargetRowsPerFragment(input.getLong(1)));
        row = new GenericInternalRow(new Object[] {r.version(), r.fragmentsRemoved(), r.fragmentsAdded(),
            r.rowsRewritten()});
      } else {
        Backfill b = new Backfill(spark, ref).maxAttempts(input.getInt(3));
        org.apache.spark.sql.Column value = functions.expr(string(input, 2));
        BackfillResult r = name.equals("add_column") ? b.add(string(input, 1), value).run()
            : b.replace(string(input, 1), value).run();
        row = new GenericInternalRow(new Object[] {r.version(), r.fragments(), r.attempts()});
      }
      InternalRow[] rows = {row};
      Scan scan = new LocalScan() {
        @Override
        public InternalRow[] rows() {
          return rows;
        }

        @Override
        public StructType readSchema() {
          return result;
        }
      };
      return List.of(scan).iterator();
    }

    private static String string(InternalRow input, int i) {
      UTF8String s = input.getUTF8String(i);
      return s.toString();
    }
  }
}
