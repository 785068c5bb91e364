package io.quiver.flink.table;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The options of a Quiver table in Flink SQL ({@code 'connector' = 'quiver'}) and of the Quiver catalog. Keys
 * that start with one of {@link #STORE_OPTION_PREFIXES} are the store adapter's own options ({@code s3.region},
 * {@code azure.sas-token}, ...) and are passed through to it unchanged; any other key not declared here is
 * refused by Flink's {@code FactoryUtil} with the list of valid keys.
 */
public final class QuiverTableOptions {
  private QuiverTableOptions() {}

  /** The connector's identifier: {@code 'connector' = 'quiver'}. */
  public static final String IDENTIFIER = "quiver";

  /** Prefixes of store options, passed to the store adapter as they are. */
  public static final List<String> STORE_OPTION_PREFIXES = List.of("s3.", "gcs.", "azure.", "local.");

  public static final ConfigOption<String> PATH = ConfigOptions.key("path")
      .stringType()
      .noDefaultValue()
      .withDescription("The table's URI: a local path, file://, s3://, gs://, az:// or memory://.");

  public static final ConfigOption<Long> SINK_ROLL_ROWS = ConfigOptions.key("sink.roll-rows")
      .longType()
      .defaultValue(1_000_000L)
      .withDescription("A sink subtask writes a data file once it buffered this many rows (and at every"
          + " checkpoint).");

  public static final ConfigOption<MemorySize> SINK_ROLL_BYTES = ConfigOptions.key("sink.roll-bytes")
      .memoryType()
      .defaultValue(MemorySize.ofMebiBytes(64))
      .withDescription("A sink subtask writes a data file once its buffered Arrow batches hold this many"
          + " bytes.");

  public static final ConfigOption<String> SINK_UID = ConfigOptions.key("sink.uid")
      .stringType()
      .noDefaultValue()
      .withDescription("Names the sink in the table's idempotence ledger (with the job id); default: the"
          + " table's path. Give two sinks of one job into one table different uids.");

  /** How a scan reads. */
  public enum ScanMode {
    /** One version, bounded. */
    SNAPSHOT,
    /** One version, then the rows every later append adds (unbounded). */
    FOLLOW,
    /**
     * One version as inserts, then every change of each later version (+I, -U, +U, -D) from the table's change
     * feed (unbounded; the table needs stable row ids).
     */
    CHANGELOG
  }

  public static final ConfigOption<ScanMode> SCAN_MODE = ConfigOptions.key("scan.mode")
      .enumType(ScanMode.class)
      .defaultValue(ScanMode.SNAPSHOT)
      .withDescription("'snapshot' reads one version (bounded); 'follow' reads it and then every later"
          + " append (unbounded); 'changelog' reads it and then every later change, inserts, updates and deletes,"
          + " as a changelog (unbounded; a table with row-ids = true).");

  public static final ConfigOption<Duration> SCAN_FOLLOW_INTERVAL = ConfigOptions.key("scan.follow.interval")
      .durationType()
      .defaultValue(Duration.ofSeconds(10))
      .withDescription("In follow mode, how often the source looks for new versions.");

  public static final ConfigOption<Long> SCAN_VERSION = ConfigOptions.key("scan.version")
      .longType()
      .noDefaultValue()
      .withDescription("Reads this version (first, in follow mode). Default: the latest.");

  public static final ConfigOption<String> SCAN_TAG = ConfigOptions.key("scan.tag")
      .stringType()
      .noDefaultValue()
      .withDescription("Reads the version this tag names.");

  public static final ConfigOption<String> SCAN_TIMESTAMP = ConfigOptions.key("scan.timestamp")
      .stringType()
      .noDefaultValue()
      .withDescription("Reads the newest version committed at or before this instant: ISO-8601"
          + " ('2026-12-05T10:00:00Z') or epoch milliseconds.");

  public static final ConfigOption<MemorySize> SCAN_SPLIT_SIZE = ConfigOptions.key("scan.split-size")
      .memoryType()
      .noDefaultValue()
      .withDescription("Splits fragments whose estimated read exceeds this into several splits (default: a"
          + " split per fragment).");

  public static final ConfigOption<Long> LOOKUP_CACHE_MAX_ROWS = ConfigOptions.key("lookup.cache.max-rows")
      .longType()
      .defaultValue(10_000L)
      .withDescription("Most keys a lookup join keeps cached per subtask (0: no cache).");

  public static final ConfigOption<Duration> LOOKUP_CACHE_TTL = ConfigOptions.key("lookup.cache.ttl")
      .durationType()
      .defaultValue(Duration.ofMinutes(10))
      .withDescription("How long a cached lookup result is served before it is read again.");

  public static final ConfigOption<Duration> LOOKUP_RELOAD_INTERVAL = ConfigOptions.key("lookup.reload-interval")
      .durationType()
      .defaultValue(Duration.ofSeconds(10))
      .withDescription("How often a lookup join checks for a new version of the table; a new version empties"
          + " the cache, so joins see it from then on.");
}
