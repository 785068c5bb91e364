package io.quiver.spark.read;

import io.quiver.dataset.ChangeScan;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.schema.ReservedNames;
import io.quiver.spark.TableRef;
import io.quiver.spark.types.SparkTypes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The change feed of a table with stable row ids as a Spark table (docs/spark.md, "Change feed"): {@code
 * spark.read.format("quiver").option("readChangeFeed", "true").option("startingVersion", a).load(uri)} and the
 * catalog's {@code <table>.changes}. Versions {@code startingVersion} to {@code endingVersion} (both inclusive, as
 * Delta's change data feed counts them; by default the first version whose changes are known, after the table got
 * row ids, to the latest): every row they inserted, deleted or updated, the table's columns at {@code
 * endingVersion} then {@code _change_type}, {@code _commit_version}, {@code _commit_timestamp}, {@code _rowid}.
 * A batch read plans one input partition per version, read on the executors as {@code spark.readStream} with the same
 * options reads its micro-batches ({@link ChangeFeedStream}); every partition names the columns as the table's
 * latest version did when the read was planned (a column added later is not returned, one a version does not have
 * yet is null in its images).
 */
public final class ChangeFeedTable implements SupportsRead {
  /** Reader option: read the change feed instead of the table. */
  public static final String READ_CHANGE_FEED = "readChangeFeed";

  /** Reader option: the first version whose changes are returned (inclusive). */
  public static final String STARTING_VERSION = "startingVersion";

  /** Reader option: the last version whose changes are returned (inclusive; default: latest). */
  public static final String ENDING_VERSION = "endingVersion";

  private final String name;
  private final TableRef ref;
  private final StructType schema;
  private final long latest;
  private final CaseInsensitiveStringMap defaults;

  private ChangeFeedTable(String name, TableRef ref, StructType schema, long latest, CaseInsensitiveStringMap options) {
    this.name = name;
    this.ref = ref;
    this.schema = schema;
    this.latest = latest;
    this.defaults = options;
  }

  /** The feed of the table {@code ref}; {@code options} may hold the range (the scan's options may too). */
  public static ChangeFeedTable load(String name, TableRef ref, CaseInsensitiveStringMap options) {
    try (Dataset ds = Dataset.open(ref.uri(), ref.datasetOptions())) {
      StructType table = SparkTypes.toSpark(ds.schema().toArrow());
      StructType schema = table
          .add(ChangeScan.CHANGE_TYPE, DataTypes.StringType, false)
          .add(ChangeScan.COMMIT_VERSION, DataTypes.LongType, false)
          .add(ChangeScan.COMMIT_TIMESTAMP, DataTypes.TimestampType, false)
          .add(ReservedNames.ROW_ID, DataTypes.LongType, false);
      return new ChangeFeedTable(name, ref, schema, ds.version(), options);
    }
  }

  /** Whether reader options ask for the change feed. */
  public static boolean asked(CaseInsensitiveStringMap options) {
    return Boolean.parseBoolean(options.getOrDefault(READ_CHANGE_FEED, "false"));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    String start = option(options, STARTING_VERSION);
    String end = option(options, ENDING_VERSION);
    return () -> new Scan() {
      @Override
      public StructType readSchema() {
        return schema;
      }

      @Override
      public String description() {
        return name + " changes [" + (start == null ? "first" : start) + ", " + (end == null ? "latest" : end) + "]";
      }

      @Override
      public Batch toBatch() {
        long[] range = range(start, end);
        return new Batch() {
          @Override
          public InputPartition[] planInputPartitions() {
            List<InputPartition> out = new ArrayList<>();
            for (long v = range[0]; v <= range[1]; v++) {
              out.add(new ChangeFeedStream.VersionPartition(v));
            }
            return out.toArray(InputPartition[]::new);
          }

          @Override
          public PartitionReaderFactory createReaderFactory() {
            return new ChangeFeedStream.Factory(ref, schema, latest);
          }
        };
      }

      @Override
      public org.apache.spark.sql.connector.read.streaming.MicroBatchStream toMicroBatchStream(String checkpoint) {
        if (end != null) {
          throw new InvalidArgumentException("a streaming change feed has no " + ENDING_VERSION + "; it follows the"
              + " table (read a range with spark.read instead)");
        }
        return new ChangeFeedStream(ref, schema, latest, start == null ? null : version(start, STARTING_VERSION));
      }
    };
  }

  private String option(CaseInsensitiveStringMap options, String key) {
    String v = options.get(key);
    return v != null ? v : defaults.get(key);
  }

  /**
   * The versions whose changes a batch read returns, {@code [first, last]} (empty when first is last + 1: the table
   * got its row ids at the last version, so no change is known yet). Checked on the driver, before any task runs.
   */
  private long[] range(String start, String end) {
    try (Dataset ds = Dataset.open(ref.uri(), ref.datasetOptions())) {
      long last = end == null ? latest : version(end, ENDING_VERSION);
      long first = start == null ? firstKnown(ds) : version(start, STARTING_VERSION);
      if (start == null && first == last + 1) {
        return new long[] {first, last};
      }
      if (first > last) {
        throw new InvalidArgumentException("the change feed of " + name + " runs from " + STARTING_VERSION + " "
            + first + " to " + ENDING_VERSION + " " + last + "; the start must not be after the end");
      }
      if (first < 2) {
        throw new InvalidArgumentException(STARTING_VERSION + " must be 2 or later (version 1 created the table:"
            + " its rows are the table at version 1), got " + first);
      }
      if (last > latest) {
        throw new InvalidArgumentException("the change feed of " + name + " ends at " + ENDING_VERSION + " " + last
            + ", after the table's latest version " + latest + "; read up to version " + latest + " or leave "
            + ENDING_VERSION + " out");
      }
      // Every version of the range must still exist, and the first must have row ids: ask the core once, here,
      // so that a bad range fails on the driver with the core's message (no changes are read).
      ds.changes(first - 1, last).namedAt(latest).open().close();
      return new long[] {first, last};
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long version(String value, String option) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException(option + " must be a version number, got '" + value + "'");
    }
  }

  /**
   * The first version whose changes are known: the one after the oldest kept version with row ids (ids, once on,
   * stay on, so the versions with them are a suffix of the history).
   */
  private static long firstKnown(Dataset ds) {
    List<Long> kept = ds.versions().stream().map(v -> v.version()).sorted().toList();
    int lo = 0;
    int hi = kept.size() - 1;
    if (!ds.manifest().hasRowIds()) {
      throw new InvalidArgumentException("the table at " + ds.uri() + " has no stable row ids, so it has no change"
          + " feed; give it row ids with ALTER TABLE … SET TBLPROPERTIES ('row-ids' = 'true'), or the table"
          + " configuration row-ids = true, and read the changes of the versions after that");
    }
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      boolean has;
      try (Dataset at = ds.checkout(kept.get(mid))) {
        has = at.manifest().hasRowIds();
      }
      if (has) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return kept.get(lo) + 1;
  }
}
