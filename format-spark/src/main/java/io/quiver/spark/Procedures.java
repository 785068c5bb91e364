package io.quiver.spark;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.IndexBuildOptions;
import io.quiver.dataset.IndexBuildResult;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.manifest.ScalarIndex;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
 * CALL quiver.system.rollback_to_version(table => 'db.events', version => 12)
 * CALL quiver.system.cleanup(table => 'db.events', older_than_hours => 24)
 * CALL quiver.system.create_tag(table => 'db.events', tag => 'nightly')
 * CALL quiver.system.drop_tag(table => 'db.events', tag => 'nightly')
 * CALL quiver.system.create_index(table => 'db.events', name => 'by_user', kind => 'btree', column => 'user_id')
 * CALL quiver.system.optimize_index(table => 'db.events', name => 'by_user')
 * CALL quiver.system.drop_index(table => 'db.events', name => 'by_user')
 * </pre>
 *
 * <p>{@code table} is a table of this catalog ({@code namespace.name}) or a URI. Each returns one row:
 * compact {@code (version, fragments_removed, fragments_added, rows_rewritten)}, the column procedures
 * {@code (version, fragments, attempts)} — see {@link QuiverSpark#compact} and {@link Backfill};
 * rollback_to_version {@code (version, restored_version)}, cleanup {@code (versions_removed, files_removed,
 * bytes_freed, dry_run)}, create_tag and drop_tag {@code (tag, version)}, create_index and optimize_index
 * {@code (name, kind, column, version, segments_added, fragments_indexed, rows_indexed)} (distributed: one
 * Spark task per fragment group, one commit), drop_index {@code (name, kind, column, version)}.
 */
final class Procedures {
  private Procedures() {}

  static final List<String> NAMES = List.of("compact", "add_column", "replace_column", "rollback_to_version",
      "cleanup", "create_tag", "drop_tag", "create_index", "optimize_index", "drop_index");

  /** The row create_index and optimize_index return. */
  private static final StructType INDEX_BUILT = new StructType().add("name", DataTypes.StringType)
      .add("kind", DataTypes.StringType).add("column", DataTypes.StringType).add("version", DataTypes.LongType)
      .add("segments_added", DataTypes.IntegerType).add("fragments_indexed", DataTypes.LongType)
      .add("rows_indexed", DataTypes.LongType);

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
      case "rollback_to_version" -> new Proc(catalog, "rollback_to_version", "commits a new version whose rows, schema"
          + " and configuration are those of an earlier version (Dataset.restore); fails with a retryable conflict if"
          + " anything is committed meanwhile",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("version", DataTypes.LongType).build()},
          new StructType().add("version", DataTypes.LongType).add("restored_version", DataTypes.LongType));
      case "cleanup" -> new Proc(catalog, "cleanup", "removes versions committed more than older_than_hours ago (never"
          + " the latest or a tagged one) and the files no kept version references, outside the safety window",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("older_than_hours", DataTypes.LongType)
                  .defaultValue(Long.toString(CleanupOptions.DEFAULT_OLDER_THAN.toHours())).build(),
              ProcedureParameter.in("safety_window_minutes", DataTypes.LongType)
                  .defaultValue(Long.toString(CleanupOptions.DEFAULT_SAFETY_WINDOW.toMinutes())).build(),
              ProcedureParameter.in("dry_run", DataTypes.BooleanType).defaultValue("false").build()},
          new StructType().add("versions_removed", DataTypes.IntegerType).add("files_removed", DataTypes.LongType)
              .add("bytes_freed", DataTypes.LongType).add("dry_run", DataTypes.BooleanType));
      case "create_tag" -> new Proc(catalog, "create_tag", "names a version (default: the latest); a tagged version"
          + " is kept by every cleanup",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("tag", DataTypes.StringType).build(),
              ProcedureParameter.in("version", DataTypes.LongType).defaultValue("-1").build()},
          new StructType().add("tag", DataTypes.StringType).add("version", DataTypes.LongType));
      case "drop_tag" -> new Proc(catalog, "drop_tag", "deletes a tag; the version it named stays until a cleanup",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("tag", DataTypes.StringType).build()},
          new StructType().add("tag", DataTypes.StringType).add("version", DataTypes.LongType));
      case "create_index" -> new Proc(catalog, "create_index", "builds a scalar index (kind 'btree' or 'bitmap') on"
          + " one column, one Spark task per group of fragments, and publishes it in one commit",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("name", DataTypes.StringType).build(),
              ProcedureParameter.in("kind", DataTypes.StringType).build(),
              ProcedureParameter.in("column", DataTypes.StringType).build(),
              ProcedureParameter.in("rows_per_task", DataTypes.LongType)
                  .defaultValue(Long.toString(IndexBuildOptions.DEFAULT_ROWS_PER_TASK)).build()},
          INDEX_BUILT);
      case "optimize_index" -> new Proc(catalog, "optimize_index", "indexes the fragments an index does not cover in"
          + " their current state (appended, updated in its column, rewritten), one Spark task per group, one commit",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("name", DataTypes.StringType).build(),
              ProcedureParameter.in("rows_per_task", DataTypes.LongType)
                  .defaultValue(Long.toString(IndexBuildOptions.DEFAULT_ROWS_PER_TASK)).build()},
          INDEX_BUILT);
      case "drop_index" -> new Proc(catalog, "drop_index", "drops a scalar index; its files stay while older versions"
          + " reference them",
          new ProcedureParameter[] {
              ProcedureParameter.in("table", DataTypes.StringType).build(),
              ProcedureParameter.in("name", DataTypes.StringType).build()},
          new StructType().add("name", DataTypes.StringType).add("kind", DataTypes.StringType)
              .add("column", DataTypes.StringType).add("version", DataTypes.LongType));
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
      if (name.equals("create_index") || name.equals("optimize_index")) {
        long rowsPerTask = input.getLong(name.equals("create_index") ? 4 : 2);
        if (rowsPerTask < 1) {
          throw new InvalidArgumentException("CALL " + catalog.name() + ".system." + name + ": rows_per_task ("
              + rowsPerTask + ") must be 1 or more");
        }
        IndexBuildOptions options = IndexBuildOptions.defaults().withRowsPerTask(rowsPerTask);
        IndexBuildResult r = name.equals("create_index")
            ? DistributedIndexBuildJob.create(spark, ref, string(input, 1), kind(string(input, 2)), string(input, 3),
                options)
            : DistributedIndexBuildJob.optimize(spark, ref, string(input, 1), options);
        ScalarIndex index = r.index();
        row = new GenericInternalRow(new Object[] {UTF8String.fromString(index.name()),
            UTF8String.fromString(index.kind().label()), UTF8String.fromString(r.column()),
            r.version(), r.segmentsAdded(), r.fragmentsIndexed(), r.rowsIndexed()});
      } else if (!List.of("compact", "add_column", "replace_column").contains(name)) {
        row = new GenericInternalRow(tableOperation(ref, input));
      } else if (name.equals("compact")) {
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

    /** The procedures that are one call of the Quiver API on the driver. */
    private Object[] tableOperation(TableRef ref, InternalRow input) {
      try (Dataset ds = ref.open()) {
        switch (name) {
          case "rollback_to_version" -> {
            long target = input.getLong(1);
            return new Object[] {ds.restore(target), target};
          }
          case "cleanup" -> {
            long hours = input.getLong(1);
            long minutes = input.getLong(2);
            if (hours < 0 || minutes < 0) {
              throw new InvalidArgumentException("CALL " + catalog.name() + ".system.cleanup: older_than_hours ("
                  + hours + ") and safety_window_minutes (" + minutes + ") must be 0 or more");
            }
            CleanupReport r = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofHours(hours))
                .safetyWindow(Duration.ofMinutes(minutes)).dryRun(input.getBoolean(3)).build());
            long files = r.manifestsRemoved() + r.transactionFilesRemoved() + r.dataFilesRemoved()
                + r.deletionFilesRemoved() + r.stagingFilesRemoved() + r.temporaryFilesRemoved()
                + r.segmentFilesRemoved();
            return new Object[] {r.versionsRemoved().size(), files, r.bytesFreed(), r.dryRun()};
          }
          case "create_tag" -> {
            long version = input.getLong(2) < 0 ? ds.latestVersion() : input.getLong(2);
            ds.tags().create(string(input, 1), version);
            return new Object[] {input.getUTF8String(1).copy(), version};
          }
          case "drop_tag" -> {
            String tag = string(input, 1);
            long version = ds.tags().version(tag);
            ds.tags().delete(tag);
            return new Object[] {input.getUTF8String(1).copy(), version};
          }
          case "drop_index" -> {
            String index = string(input, 1);
            Optional<ScalarIndex> existing = ds.indices().get(index);
            String column = existing.map(i -> ds.manifest().schema().pathOf(i.fieldId())).orElse(null);
            long version = ds.indices().drop(index); // a missing index: NotFoundException naming the table's indices
            ScalarIndex dropped = existing.orElseThrow();
            return new Object[] {input.getUTF8String(1).copy(), UTF8String.fromString(dropped.kind().label()),
                UTF8String.fromString(column), version};
          }
          default -> throw new IllegalStateException(name);
        }
      }
    }

    /** The index kind a CALL names, in any case. */
    private ScalarIndex.Kind kind(String label) {
      try {
        return ScalarIndex.Kind.of(label.toLowerCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new InvalidArgumentException("CALL " + catalog.name() + ".system." + name + ": kind '" + label
            + "' is not an index kind; expected 'btree' (ranges and point lookups on many distinct values) or"
            + " 'bitmap' (few distinct values)");
      }
    }

    private static String string(InternalRow input, int i) {
      UTF8String s = input.getUTF8String(i);
      return s.toString();
    }
  }
}
