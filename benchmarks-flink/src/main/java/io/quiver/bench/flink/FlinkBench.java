package io.quiver.bench.flink;

import io.quiver.dataset.Dataset;
import io.quiver.manifest.Fragment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

/**
 * What the Flink benchmarks share: the row shape, the SQL that generates rows, the table DDL and a Flink SQL
 * environment in batch mode (parallelism 2, one local MiniCluster per job, as a job submitted from a client
 * would run).
 *
 * <p>Rows are {@code (id BIGINT NOT NULL, x DOUBLE, name STRING, cat INT)}: {@code id} from a bounded
 * {@code datagen} sequence, the others computed from it ({@code x = id / 2}, {@code name = 'n' || id},
 * {@code cat = id % 100}).
 */
public final class FlinkBench {
  private FlinkBench() {}

  /** The sink and source parallelism of every job. */
  public static final int PARALLELISM = 2;

  /** The declared columns of every table. */
  public static final String COLUMNS = "id BIGINT NOT NULL, x DOUBLE, name STRING, cat INT";

  /** Spreads an upsert checkpoint's keys over the whole key range (7919 is prime, so coprime to 10^k). */
  public static final long KEY_STRIDE = 7919;

  /** The benchmark's row count: system property {@code quiver.bench.<name>}, else {@code fallback}. */
  public static long size(String name, long fallback) {
    return Long.getLong("quiver.bench." + name, fallback);
  }

  /** The directory the benchmarks write their tables in: {@code quiver.bench.dir}, else a temporary one. */
  public static Path workDir(String name) {
    try {
      String dir = System.getProperty("quiver.bench.dir");
      Path base = dir == null ? Files.createTempDirectory("quiver-flink-bench") : Path.of(dir);
      Path path = base.resolve(name);
      delete(path);
      Files.createDirectories(path);
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A batch-mode Flink SQL environment. */
  public static TableEnvironment batchEnv() {
    Configuration conf = new Configuration();
    conf.setString("parallelism.default", Integer.toString(PARALLELISM));
    conf.setString("table.exec.resource.default-parallelism", Integer.toString(PARALLELISM));
    conf.setString("taskmanager.numberOfTaskSlots", Integer.toString(PARALLELISM));
    conf.setString("rest.bind-port", "0");
    return TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode().withConfiguration(conf).build());
  }

  /**
   * Declares {@code gen}: a bounded datagen source of the ids {@code 0 .. rows-1}, unthrottled (datagen's default
   * {@code rows-per-second} is 10,000 per subtask, which made every job here last rows / 10,000 seconds).
   */
  public static void declareGenerator(TableEnvironment env, long rows) {
    env.executeSql("CREATE TEMPORARY TABLE gen (seq BIGINT NOT NULL) WITH ('connector' = 'datagen',"
        + " 'rows-per-second' = '1000000000', 'number-of-rows' = '" + rows + "', 'fields.seq.kind' = 'sequence',"
        + " 'fields.seq.start' = '0', 'fields.seq.end' = '" + (rows - 1) + "')");
  }

  /** The SELECT of {@code gen}'s rows, with {@code id} computed by {@code idExpr} from {@code seq}. */
  public static String select(String idExpr) {
    return "SELECT " + idExpr + " AS id, CAST(" + idExpr + " AS DOUBLE) / 2 AS x, CONCAT('n', CAST(" + idExpr
        + " AS STRING)) AS name, CAST(MOD(" + idExpr + ", 100) AS INT) AS cat FROM gen";
  }

  /** Declares {@code name} as a Quiver table at {@code path}, with or without {@code PRIMARY KEY (id)}. */
  public static void declareQuiver(TableEnvironment env, String name, Path path, boolean primaryKey) {
    env.executeSql("CREATE TEMPORARY TABLE " + name + " (" + COLUMNS
        + (primaryKey ? ", PRIMARY KEY (id) NOT ENFORCED" : "") + ") WITH ('connector' = 'quiver', 'path' = '"
        + path.toAbsolutePath() + "')");
  }

  /** Declares {@code name} as Flink's filesystem connector at {@code path} in {@code format}. */
  public static void declareFilesystem(TableEnvironment env, String name, Path path, String format) {
    env.executeSql("CREATE TEMPORARY TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'filesystem',"
        + " 'path' = '" + path.toAbsolutePath().toUri() + "', 'format' = '" + format + "')");
  }

  /** Declares {@code name} as Flink's blackhole sink (the job's cost without a sink). */
  public static void declareBlackhole(TableEnvironment env, String name) {
    env.executeSql("CREATE TEMPORARY TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'blackhole')");
  }

  /** Runs {@code sql} (an INSERT) to its end. */
  public static void run(TableEnvironment env, String sql) {
    TableResult result = env.executeSql(sql);
    try {
      result.await();
    } catch (Exception e) {
      throw new IllegalStateException("the job failed: " + sql, e);
    }
  }

  /** Appends {@code rows} generated rows (ids 0 .. rows-1) to a new Quiver table at {@code path}. */
  public static void writeBase(Path path, long rows) {
    TableEnvironment env = batchEnv();
    declareGenerator(env, rows);
    declareQuiver(env, "base", path, false);
    run(env, "INSERT INTO base " + select("seq"));
    try (Dataset ds = Dataset.open(path.toAbsolutePath().toString())) {
      if (ds.countRows() != rows) {
        throw new IllegalStateException(path + " holds " + ds.countRows() + " rows, expected " + rows);
      }
    }
  }

  /**
   * Upserts the table at {@code path} (of {@code tableRows} rows, ids 0 .. tableRows-1) with one batch INSERT
   * through the primary-key sink: {@code keys} keys, the {@code round}-th group of them, spread over the key
   * range ({@code id = (seq + round * keys) * 7919 mod tableRows}). A batch INSERT is one commit: the
   * checkpoint's single row delta.
   */
  public static void upsert(Path path, long tableRows, long keys, int round) {
    TableEnvironment env = batchEnv();
    declareGenerator(env, keys);
    declareQuiver(env, "up", path, true);
    run(env, "INSERT INTO up " + select(upsertKey(tableRows, keys, round)));
  }

  /** The SQL expression of the {@code round}-th upsert's key of {@code seq}. */
  static String upsertKey(long tableRows, long keys, int round) {
    return "MOD((seq + " + ((long) round * keys) + ") * " + KEY_STRIDE + ", " + tableRows + ")";
  }

  /** The table's layout: fragments, deletion files and deleted rows, overlays. */
  public static String layout(Path path) {
    try (Dataset ds = Dataset.open(path.toAbsolutePath().toString())) {
      int fragments = 0;
      int withDeletions = 0;
      long deleted = 0;
      int overlays = 0;
      for (Fragment f : ds.manifest().fragments()) {
        fragments++;
        if (f.deletionFile().isPresent()) {
          withDeletions++;
          deleted += f.deletionFile().get().deletedRows();
        }
        overlays += f.overlays().size();
      }
      return String.format("version %d, %,d live rows, %d fragments, %d with a deletion file (%,d rows deleted),"
          + " %d overlays", ds.version(), ds.countRows(), fragments, withDeletions, deleted, overlays);
    }
  }

  /** The bytes of every file under {@code path} (a table's data, deletion and metadata files). */
  public static long bytesUnder(Path path) {
    try (Stream<Path> walk = Files.walk(path)) {
      return walk.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code path} and everything under it, if it exists. */
  public static void delete(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
