package io.quiver.flink.source;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Scanner;
import io.quiver.dataset.VersionInfo;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.flink.types.FlinkTypes;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A Flink source (FLIP-27) reading a Quiver table as {@link RowData}, one split per Quiver scan task.
 *
 * <pre>{@code
 * QuiverSource source = QuiverSource.forRowData("s3://bucket/tables/events")
 *     .storeOptions(Map.of("s3.region", "eu-west-1"))
 *     .columns("id", "kind", "at")
 *     .filter(Predicate.eq("kind", "click"))
 *     .continuous(Duration.ofSeconds(10))   // or bounded (the default): one version
 *     .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "events");
 * }</pre>
 *
 * <p><b>Bounded</b> (the default): reads one version — {@link Builder#version(long)}, {@link Builder#tag(String)},
 * {@link Builder#asOf(Instant)}, or the latest when {@link Builder#build()} runs — with the columns projected
 * and the filter applied inside the scan tasks (the filter is exact: no row it rejects is emitted). The version
 * is pinned when the source is built, so a job restarted from scratch reads the same rows.
 *
 * <p><b>Continuous</b>: reads that version, then every discovery interval looks for versions committed since and
 * reads the rows each {@code append} added, each at the version that appended it (so a later compaction, which
 * rewrites rows into new fragments, emits nothing again). Versions that add no rows are skipped; one that
 * changes or removes rows (overwrite, delete, update, restore, ...) or that a cleanup removed before the source
 * read it fails the job with a {@link QuiverSourceException} saying how to go on. See {@link Planner}.
 *
 * <p><b>Exactly once</b>: the enumerator checkpoints the splits not yet assigned and the last version planned;
 * each reader checkpoints its splits with the rows of each already emitted, and a split read again after a
 * restore skips them. With checkpointing, every row is emitted once downstream of the checkpoint barrier.
 *
 * <p>The columns keep the types {@link FlinkTypes} maps them to; the produced type is {@link #getProducedType()}
 * ({@link FlinkTypes#typeInfo(RowType)}).
 */
public final class QuiverSource
    implements Source<RowData, QuiverSplit, QuiverEnumeratorState>, ResultTypeQueryable<RowData> {
  private static final long serialVersionUID = 1L;

  private final SourceConfig config;

  private QuiverSource(SourceConfig config) {
    this.config = config;
  }

  /** A builder of a source reading the table at {@code uri} (any scheme a registered store adapter opens). */
  public static Builder forRowData(String uri) {
    return new Builder(uri);
  }

  SourceConfig config() {
    return config;
  }

  /** The version the source reads first (the only one, when bounded). */
  public long version() {
    return config.version();
  }

  /** The type of the rows the source emits. */
  public RowType rowType() {
    return config.producedType();
  }

  /** The columns read, in output order. */
  public List<String> columns() {
    return List.copyOf(config.columns());
  }

  @Override
  public Boundedness getBoundedness() {
    return config.continuous() ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<QuiverSplit, QuiverEnumeratorState> createEnumerator(
      SplitEnumeratorContext<QuiverSplit> context) {
    return new QuiverSplitEnumerator(context, config, null);
  }

  @Override
  public SplitEnumerator<QuiverSplit, QuiverEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<QuiverSplit> context, QuiverEnumeratorState checkpoint) {
    boolean broken = SourceFaults.current().restoredStateIgnored(); // never in production
    return new QuiverSplitEnumerator(context, config, broken ? null : checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<QuiverSplit> getSplitSerializer() {
    return Serializers.SplitSerializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<QuiverEnumeratorState> getEnumeratorCheckpointSerializer() {
    return Serializers.StateSerializer.INSTANCE;
  }

  @Override
  public SourceReader<RowData, QuiverSplit> createReader(SourceReaderContext readerContext) {
    return new QuiverSourceReader(config, readerContext);
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return FlinkTypes.typeInfo(config.producedType());
  }

  @Override
  public String toString() {
    return "QuiverSource{" + config.uri() + "@" + config.version() + (config.continuous() ? ", continuous" : "")
        + (config.changelog() ? ", changelog" : "")
        + ", columns=" + config.columns() + "}";
  }

  /** Builds a {@link QuiverSource}; {@link #build()} opens the table to pin the version and the row type. */
  public static final class Builder {
    private final String uri;
    private Map<String, String> storeOptions = Map.of();
    private List<String> columns;
    private Predicate filter;
    private Long version;
    private String tag;
    private Instant asOf;
    private Duration discoveryInterval;
    private int batchSize = Scanner.DEFAULT_BATCH_SIZE;
    private long targetTaskBytes;
    private boolean flatten;
    private long limit = -1;

    private boolean changelog;

    private Builder(String uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The store adapter's options (credentials, region, endpoint, ...), as {@code DatasetOptions} takes them. */
    public Builder storeOptions(Map<String, String> options) {
      this.storeOptions = Map.copyOf(options);
      return this;
    }

    /** Reads only these columns (dotted paths select struct members), in this order. Default: every column. */
    public Builder columns(String... names) {
      return columns(List.of(names));
    }

    /** Reads only these columns, in this order. */
    public Builder columns(List<String> names) {
      this.columns = List.copyOf(names);
      return this;
    }

    /** Emits only the rows for which {@code predicate} is true (exact, evaluated inside the scan tasks). */
    public Builder filter(Predicate predicate) {
      this.filter = Objects.requireNonNull(predicate, "predicate");
      return this;
    }

    /** Reads this version (first, when continuous). Replaces an earlier {@link #tag} or {@link #asOf}. */
    public Builder version(long value) {
      clearVersion();
      this.version = value;
      return this;
    }

    /** Reads the version this tag names when the source is built. */
    public Builder tag(String name) {
      clearVersion();
      this.tag = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Reads the newest version committed at or before {@code instant}. */
    public Builder asOf(Instant instant) {
      clearVersion();
      this.asOf = Objects.requireNonNull(instant, "instant");
      return this;
    }

    private void clearVersion() {
      version = null;
      tag = null;
      asOf = null;
    }

    /** Follows the table's appends after the start version, looking for new versions this often. */
    public Builder continuous(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new InvalidArgumentException("the discovery interval must be positive, got " + interval);
      }
      this.discoveryInterval = interval;
      return this;
    }

    /**
     * With {@link #continuous}: emits the start version's rows as inserts and then every change of each later
     * version as a changelog — {@code +I} for an inserted row, {@code -D} for a deleted one, {@code -U} and {@code
     * +U} for an updated one — read from the table's change feed ({@code Dataset.changes}), so a job can mirror a
     * table with updates and deletes. The table needs stable row ids (table configuration {@code row-ids = true})
     * from the start version on. The changes come in version order on one reader (subtask 0), after every row of
     * the start version, so the changelog is ordered; compactions produce none.
     */
    public Builder changelog() {
      this.changelog = true;
      return this;
    }

    /** Most rows per Arrow batch read (default {@value Scanner#DEFAULT_BATCH_SIZE}). */
    public Builder batchSize(int rows) {
      this.batchSize = rows;
      return this;
    }

    /** Splits fragments whose estimated read exceeds this into several splits (default: one per fragment). */
    public Builder targetSplitBytes(long bytes) {
      this.targetTaskBytes = bytes;
      return this;
    }

    /**
     * Emits one top-level field per column path, in the order of {@link #columns}: a struct member
     * ({@code "s.x"}) becomes a field of its own named {@code s_x}, null where the struct is null — the shape
     * Flink SQL's nested projection expects. Default: struct members stay inside their (pruned) structs.
     */
    public Builder flattenColumns() {
      this.flatten = true;
      return this;
    }

    /**
     * Reads at most about {@code rows} rows of the version: each split stops after that many (the job's own
     * limit still applies on top). Ignored by a continuous source.
     */
    public Builder limit(long rows) {
      if (rows < 0) {
        throw new InvalidArgumentException("a limit must be >= 0, got " + rows);
      }
      this.limit = rows;
      return this;
    }

    /**
     * Opens the table, pins the version, and checks the columns and the filter against its schema.
     *
     * @throws io.quiver.exceptions.TableNotFoundException if no table is at the URI
     * @throws VersionNotFoundException if the version does not exist (or none is as old as {@code asOf})
     * @throws io.quiver.exceptions.TagNotFoundException if the tag does not exist
     * @throws InvalidArgumentException for an unknown column or a filter that does not fit the schema
     * @throws io.quiver.exceptions.InvalidSchemaException if a column read has a type Flink cannot hold
     */
    public QuiverSource build() {
      DatasetOptions options = DatasetOptions.builder().storeOptions(storeOptions).build();
      try (Dataset latest = Dataset.open(uri, options); Dataset at = pinned(latest)) {
        if (changelog && discoveryInterval == null) {
          throw new InvalidArgumentException("a changelog source follows the table: give it continuous(interval)"
              + " as well, or read one version without changelog()");
        }
        if (changelog && filter != null) {
          throw new InvalidArgumentException("a changelog source does not take a filter (an update can move a row"
              + " into or out of it); filter the changelog downstream");
        }
        if (changelog && !at.manifest().hasRowIds()) {
          throw new InvalidArgumentException("version " + at.version() + " of " + uri + " has no stable row ids, so"
              + " its later changes cannot be told apart by row; a changelog source starts at a version with row ids"
              + " (the table configuration 'row-ids' = 'true' gives the table ids from the version that sets it)");
        }
        List<String> read = columns != null ? columns
            : at.schema().fields().stream().map(Field::name).toList();
        Scanner scan = at.newScan().columns(read).batchSize(batchSize);
        if (filter != null) {
          scan.filter(filter);
        }
        RowType rowType = FlinkTypes.toRowType(scan.projectedSchema());
        return new QuiverSource(new SourceConfig(uri, new HashMap<>(storeOptions), new ArrayList<>(read),
            filter == null ? null : Filters.encode(filter), at.version(), discoveryInterval != null,
            discoveryInterval == null ? 0 : Math.max(1, discoveryInterval.toMillis()), batchSize, targetTaskBytes,
            rowType, flatten ? FlatRows.of(rowType, read) : null, limit, changelog));
      }
    }

    private Dataset pinned(Dataset latest) {
      if (version != null) {
        return latest.checkout(version);
      }
      if (tag != null) {
        return latest.checkout(tag);
      }
      if (asOf != null) {
        List<VersionInfo> versions = latest.versions();
        for (VersionInfo v : versions) { // newest first
          if (!v.timestamp().isAfter(asOf)) {
            return latest.checkout(v.version());
          }
        }
        long oldest = versions.isEmpty() ? latest.version() : versions.get(versions.size() - 1).version();
        throw new VersionNotFoundException(-1, "table " + uri + " has no version committed at or before " + asOf
            + "; its oldest version still present is " + oldest + " (committed "
            + (versions.isEmpty() ? "?" : versions.get(versions.size() - 1).timestamp()) + "); read a later instant"
            + " or an explicit version");
      }
      return latest.checkout(latest.version());
    }
  }
}
