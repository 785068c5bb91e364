package io.quiver.spark;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.manifest.Fragment;
import io.quiver.spark.ops.StageFragments;
import io.quiver.spark.types.SparkTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A distributed column backfill: new or replaced columns computed by Spark from the table's own columns,
 * fragment by fragment on the executors, staged there as Quiver column writes and published on the driver in
 * ONE commit.
 *
 * <pre>{@code
 * BackfillResult r = QuiverSpark.backfill(spark, "quiver.db.readings")
 *     .add("fahrenheit", col("celsius").multiply(9).divide(5).plus(32))
 *     .run();
 * }</pre>
 *
 * <p>Every staged write is bound to the version its inputs were read at <em>and</em> to the input columns
 * read (the columns the expressions reference, or those {@link #inputs} names). If anything they depend on
 * changes before the commit — a concurrent update of an input column in a fragment, a compaction that
 * rewrote fragments, a replacement of a target — Quiver refuses the commit with a {@link
 * StaleColumnWriteException}; the backfill then asks Quiver which writes are stale, keeps the fresh ones, and
 * recomputes only the stale fragments and the latest version's fragments no fresh write covers (those a
 * compaction produced), from the latest version, up to {@link #maxAttempts} commits. This is where it differs
 * from a backfill that commits against "the latest" table: a value computed from an input that changed is
 * never published.
 *
 * <p>New columns are nullable (existing rows that no write covers, such as deleted ones, read null). A
 * replaced column keeps its type: the expression is cast to it.
 */
public final class Backfill {
  /** Observes a backfill's attempts (progress, logging; tests use it to interleave concurrent commits). */
  public interface Listener {
    /** Called on the driver after an attempt staged its writes, before it commits them. */
    default void staged(int attempt, long readVersion, Set<Long> fragmentsComputed) {}
  }

  private final SparkSession spark;
  private final TableRef ref;
  private final LinkedHashMap<String, Column> added = new LinkedHashMap<>();
  private final LinkedHashMap<String, Column> replaced = new LinkedHashMap<>();
  private List<String> inputs;
  private int maxAttempts = 3;
  private Listener listener = new Listener() {};

  Backfill(SparkSession spark, TableRef ref) {
    this.spark = spark;
    this.ref = ref;
  }

  /** Adds a new nullable column {@code name} whose values are {@code value} (an expression over the table's columns). */
  public Backfill add(String name, Column value) {
    put(added, name, value);
    return this;
  }

  /** Replaces the values of existing column {@code name} by {@code value} (cast to the column's type). */
  public Backfill replace(String name, Column value) {
    put(replaced, name, value);
    return this;
  }

  private void put(Map<String, Column> into, String name, Column value) {
    if (name == null || name.isBlank() || value == null) {
      throw new InvalidArgumentException("a backfilled column needs a name and an expression");
    }
    if (added.containsKey(name) || replaced.containsKey(name)) {
      throw new InvalidArgumentException("column '" + name + "' is already backfilled by this job");
    }
    into.put(name, value);
  }

  /**
   * The columns the values are computed from, when they should be declared rather than taken from the
   * expressions' references (for example when an expression calls a UDF that reads a column through a
   * struct). The expressions may reference only these columns.
   */
  public Backfill inputs(String... columns) {
    this.inputs = List.of(columns);
    return this;
  }

  /** How many commits to try (1 = no recompute); at least 1, 3 by default. */
  public Backfill maxAttempts(int attempts) {
    if (attempts < 1) {
      throw new InvalidArgumentException("a backfill needs at least one attempt; got " + attempts);
    }
    this.maxAttempts = attempts;
    return this;
  }

  public Backfill listener(Listener value) {
    this.listener = value == null ? new Listener() {} : value;
    return this;
  }

  /**
   * Runs the backfill: computes, stages, commits once; on stale writes recomputes just what is stale.
   *
   * @throws StaleColumnWriteException if the writes are still stale after {@link #maxAttempts} commits, or the
   *     column schema itself no longer fits the table (a column of the same name was added since, say)
   */
  public BackfillResult run() {
    if (added.isEmpty() && replaced.isEmpty()) {
      throw new InvalidArgumentException("nothing to backfill: call add(name, expression) or replace(name, expression)");
    }
    try (Dataset ds = ref.open()) {
      long version = ds.version();
      org.apache.spark.sql.Dataset<Row> table = read(version);
      List<Column> outputs = new ArrayList<>();
      List<String> names = new ArrayList<>();
      added.forEach((n, c) -> {
        outputs.add(c.as(n));
        names.add(n);
      });
      StructType tableSchema = table.schema();
      replaced.forEach((n, c) -> {
        StructField target = field(tableSchema, n);
        outputs.add(c.cast(target.dataType()).as(n));
        names.add(n);
      });
      org.apache.spark.sql.Dataset<Row> computed = table.select(outputs.toArray(new Column[0]));
      List<String> inputColumns = inputs != null ? inputs : references(computed);
      List<Field> newFields = new ArrayList<>();
      for (String n : added.keySet()) {
        newFields.add(SparkTypes.toArrow(n, computed.schema().apply(n).dataType(), true));
      }
      ColumnSchema schema = ds.columns().newSchema(newFields, List.copyOf(replaced.keySet()), inputColumns);
      // Spark computes the values in the column schema's own types and order.
      StructType want = SparkTypes.toSpark(schema.arrowSchema());
      List<Column> typed = new ArrayList<>();
      for (StructField f : want.fields()) {
        Column source = added.containsKey(f.name()) ? added.get(f.name()) : replaced.get(f.name());
        typed.add(source.cast(f.dataType()).as(f.name()));
      }

      Set<Long> toCompute = fragmentsWithRows(ds.manifest().fragments());
      List<StagedColumnWrite> writes = new ArrayList<>();
      List<Set<Long>> computedPerAttempt = new ArrayList<>();
      long readVersion = version;
      Dataset at = ds;
      try {
        for (int attempt = 1; ; attempt++) {
          writes.addAll(stage(at, schema, typed, toCompute));
          computedPerAttempt.add(new TreeSet<>(toCompute));
          listener.staged(attempt, readVersion, toCompute);
          try (Dataset committer = ref.open()) {
            long committed = committer.columns().commit(writes);
            return new BackfillResult(committed, version, writes.size(), computedPerAttempt);
          } catch (StaleColumnWriteException e) {
            if (attempt >= maxAttempts) {
              throw new StaleColumnWriteException(e.fragmentId(), e.field(), e.getMessage() + " (backfill gave up"
                  + " after " + attempt + " commits; fragments computed per attempt: " + computedPerAttempt + ")");
            }
            Dataset latest = ref.open();
            if (at != ds) {
              at.close();
            }
            at = latest;
            readVersion = latest.version();
            List<StaleColumnWriteException> stale = latest.columns().check(writes);
            Set<Long> staleFragments = new TreeSet<>();
            for (StaleColumnWriteException s : stale) {
              if (s.fragmentId() < 0) {
                throw s; // the column schema itself no longer fits: nothing partial can be kept
              }
              staleFragments.add(s.fragmentId());
            }
            writes.removeIf(w -> staleFragments.contains(w.fragmentId()));
            Set<Long> covered = new TreeSet<>();
            writes.forEach(w -> covered.add(w.fragmentId()));
            toCompute = fragmentsWithRows(latest.manifest().fragments());
            toCompute.removeAll(covered);
            // Inputs are read and staged at one version: the recompute gets a column schema of the latest
            // version. No field ids were allocated since (check() would have said so, with fragment -1), so
            // its new columns have the ids and types the fresh writes were staged with.
            schema = latest.columns().newSchema(newFields, List.copyOf(replaced.keySet()), inputColumns);
          }
        }
      } finally {
        if (at != ds) {
          at.close();
        }
      }
    }
  }

  private static Set<Long> fragmentsWithRows(List<Fragment> fragments) {
    Set<Long> ids = new TreeSet<>();
    for (Fragment f : fragments) {
      if (f.liveRows() > 0) {
        ids.add(f.id());
      }
    }
    return ids;
  }

  private static StructField field(StructType schema, String name) {
    for (StructField f : schema.fields()) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    throw new InvalidArgumentException("no column '" + name + "' to replace; columns are "
        + List.of(schema.fieldNames()) + " (use add(name, expression) for a new column)");
  }

  /** The table's columns the expressions reference (analysis resolves them, so these are exactly what is read). */
  private static List<String> references(org.apache.spark.sql.Dataset<Row> computed) {
    org.apache.spark.sql.catalyst.plans.logical.LogicalPlan plan =
        ((org.apache.spark.sql.classic.Dataset<Row>) computed).queryExecution().analyzed();
    Set<String> names = new LinkedHashSet<>();
    for (Attribute a : scala.jdk.javaapi.CollectionConverters.asJava(plan.references().toSeq())) {
      if (!a.name().equals(QuiverTable.ROW_ADDRESS) && !a.name().equals(QuiverTable.FRAGMENT)) {
        names.add(a.name());
      }
    }
    return List.copyOf(names);
  }

  private org.apache.spark.sql.Dataset<Row> read(long version) {
    return spark.read().format(QuiverDataSource.NAME).options(ref.storeOptions())
        .option(VersionRef.VERSION_OPTION, version).load(ref.uri());
  }

  /** Computes and stages the columns of {@code fragments} at {@code at}'s version, on the executors. */
  private List<StagedColumnWrite> stage(Dataset at, ColumnSchema schema, List<Column> typed, Set<Long> fragments) {
    if (fragments.isEmpty()) {
      return List.of();
    }
    Map<Long, Long> physicalRows = new HashMap<>();
    for (Fragment f : at.manifest().fragments()) {
      if (fragments.contains(f.id())) {
        physicalRows.put(f.id(), f.physicalRows());
      }
    }
    List<Column> select = new ArrayList<>(typed);
    select.add(functions.col(QuiverTable.FRAGMENT));
    select.add(functions.col(QuiverTable.ROW_ADDRESS));
    org.apache.spark.sql.Dataset<Row> rows = read(at.version())
        .where(functions.col(QuiverTable.FRAGMENT).isin(fragments.toArray()))
        .select(select.toArray(new Column[0]))
        .repartition(Math.max(1, Math.min(fragments.size(), spark.sparkContext().defaultParallelism() * 4)),
            functions.col(QuiverTable.FRAGMENT))
        .sortWithinPartitions(QuiverTable.FRAGMENT, QuiverTable.ROW_ADDRESS);
    StageFragments stager = new StageFragments(ref, at.version(), schema.encode(), physicalRows, typed.size());
    List<byte[]> encoded = ((org.apache.spark.sql.classic.Dataset<Row>) rows).queryExecution().toRdd().toJavaRDD()
        .mapPartitions(stager).collect();
    List<StagedColumnWrite> out = new ArrayList<>();
    for (byte[] b : encoded) {
      out.add(StagedColumnWrite.decode(b));
    }
    return out;
  }
}
