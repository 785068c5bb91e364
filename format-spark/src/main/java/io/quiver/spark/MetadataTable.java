package io.quiver.spark;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.Indices;
import io.quiver.dataset.VersionInfo;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.ScalarIndex;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A table's history and layout as a read-only table of the catalog: {@code quiver.db.events.history} and its
 * siblings, computed on the driver from the manifest when the table is loaded (metadata is small: one row per
 * version, fragment, file or index). {@code fragments}, {@code files} and {@code indices} (the scalar indices
 * and how much of the version they cover) describe the version read, so {@code VERSION AS OF} / {@code
 * TIMESTAMP AS OF} apply to them; the others list every version still kept.
 */
final class MetadataTable implements SupportsRead {
  /** The metadata tables, by the name that follows the table's. */
  enum Kind {
    /** One row per kept version: the commit log. */
    HISTORY(new StructType()
        .add("version", DataTypes.LongType, false)
        .add("committed_at", DataTypes.TimestampType, false)
        .add("operation", DataTypes.StringType, false)
        .add("read_version", DataTypes.LongType, false)
        .add("transaction_uuid", DataTypes.StringType, true)
        .add("properties", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType), false)),
    /** One row per kept version: what it holds and which tags name it. */
    VERSIONS(new StructType()
        .add("version", DataTypes.LongType, false)
        .add("committed_at", DataTypes.TimestampType, false)
        .add("rows", DataTypes.LongType, false)
        .add("fragments", DataTypes.IntegerType, false)
        .add("tags", DataTypes.createArrayType(DataTypes.StringType, false), false)
        .add("is_latest", DataTypes.BooleanType, false)),
    /** One row per fragment of the version read. */
    FRAGMENTS(new StructType()
        .add("fragment_id", DataTypes.LongType, false)
        .add("physical_rows", DataTypes.LongType, false)
        .add("deleted_rows", DataTypes.LongType, false)
        .add("live_rows", DataTypes.LongType, false)
        .add("data_files", DataTypes.IntegerType, false)
        .add("overlays", DataTypes.IntegerType, false)
        .add("deletion_file", DataTypes.StringType, true)
        .add("size_bytes", DataTypes.LongType, false)),
    /** One row per file the version read references: data files, overlays and deletion files. */
    FILES(new StructType()
        .add("fragment_id", DataTypes.LongType, false)
        .add("kind", DataTypes.StringType, false)
        .add("path", DataTypes.StringType, false)
        .add("size_bytes", DataTypes.LongType, false)
        .add("field_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
        .add("overlay_version", DataTypes.LongType, true)
        .add("deleted_rows", DataTypes.LongType, true)),
    /** One row per scalar index of the version read, with how much of that version it covers. */
    INDICES(new StructType()
        .add("name", DataTypes.StringType, false)
        .add("kind", DataTypes.StringType, false)
        .add("column", DataTypes.StringType, false)
        .add("created_version", DataTypes.LongType, false)
        .add("segments", DataTypes.IntegerType, false)
        .add("size_bytes", DataTypes.LongType, false)
        .add("covered_fragments", DataTypes.LongType, false)
        .add("uncovered_fragments", DataTypes.LongType, false)
        .add("covered_rows", DataTypes.LongType, false)
        .add("uncovered_rows", DataTypes.LongType, false)),
    /** One row per tag. */
    TAGS(new StructType()
        .add("name", DataTypes.StringType, false)
        .add("version", DataTypes.LongType, false));

    final StructType schema;

    Kind(StructType schema) {
      this.schema = schema;
    }

    /** The name after the table's: {@code history}, {@code versions}, … */
    String suffix() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Kind> of(String suffix) {
      for (Kind k : values()) {
        if (k.suffix().equals(suffix)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  private final String name;
  private final Kind kind;
  private final InternalRow[] rows;

  private MetadataTable(String name, Kind kind, InternalRow[] rows) {
    this.name = name;
    this.kind = kind;
    this.rows = rows;
  }

  /** The {@code kind} table of {@code ref} at {@code version} (which only fragments, files and indices depend on). */
  static MetadataTable load(String name, Kind kind, TableRef ref, VersionRef version) {
    try (Dataset ds = version.open(ref)) {
      return new MetadataTable(name, kind, rows(kind, ds).toArray(InternalRow[]::new));
    }
  }

  private static List<InternalRow> rows(Kind kind, Dataset ds) {
    List<InternalRow> out = new ArrayList<>();
    switch (kind) {
      case HISTORY -> {
        for (VersionInfo v : ds.versions()) {
          out.add(row(v.version(), micros(v.timestamp()), utf8(v.operation()), v.readVersion(),
              v.transactionUuid() == null ? null : utf8(v.transactionUuid()), map(v.properties())));
        }
      }
      case VERSIONS -> {
        Map<Long, List<String>> tagsOf = new TreeMap<>();
        ds.tags().list().forEach((tag, v) -> tagsOf.computeIfAbsent(v, x -> new ArrayList<>()).add(tag));
        long latest = ds.latestVersion();
        for (VersionInfo v : ds.versions()) {
          Object[] tags = tagsOf.getOrDefault(v.version(), List.of()).stream().map(MetadataTable::utf8).toArray();
          out.add(row(v.version(), micros(v.timestamp()), v.rows(), v.fragments(), new GenericArrayData(tags),
              v.version() == latest));
        }
      }
      case FRAGMENTS -> {
        for (Fragment f : ds.manifest().fragments()) {
          long bytes = f.files().stream().mapToLong(DataFile::sizeBytes).sum()
              + f.overlays().stream().mapToLong(o -> o.dataFile().sizeBytes()).sum()
              + f.deletionFile().map(d -> d.sizeBytes()).orElse(0L);
          out.add(row(f.id(), f.physicalRows(), f.physicalRows() - f.liveRows(), f.liveRows(), f.files().size(),
              f.overlays().size(), f.deletionFile().map(d -> utf8(d.path())).orElse(null), bytes));
        }
      }
      case FILES -> {
        for (Fragment f : ds.manifest().fragments()) {
          for (DataFile d : f.files()) {
            out.add(row(f.id(), utf8("data"), utf8(d.path()), d.sizeBytes(), ints(d.fieldIds()), null, null));
          }
          for (Overlay o : f.overlays()) {
            out.add(row(f.id(), utf8("overlay"), utf8(o.dataFile().path()), o.dataFile().sizeBytes(),
                ints(o.dataFile().fieldIds()), o.committedVersion(), null));
          }
          f.deletionFile().ifPresent(d ->
              out.add(row(f.id(), utf8("deletion"), utf8(d.path()), d.sizeBytes(), null, null, d.deletedRows())));
        }
      }
      case INDICES -> {
        for (ScalarIndex index : ds.indices().list()) {
          Indices.Coverage c = ds.indices().coverage(index.name());
          out.add(row(utf8(index.name()), utf8(index.kind().label()),
              utf8(ds.manifest().schema().pathOf(index.fieldId())), index.createdVersion(), index.segments().size(),
              index.sizeBytes(), c.coveredFragments(), c.uncoveredFragments(), c.coveredRows(), c.uncoveredRows()));
        }
      }
      case TAGS -> {
        SortedMap<String, Long> tags = ds.tags().list();
        tags.forEach((tag, v) -> out.add(row(utf8(tag), v)));
      }
      default -> throw new IllegalStateException(kind.toString());
    }
    return out;
  }

  private static InternalRow row(Object... values) {
    return new GenericInternalRow(values);
  }

  private static UTF8String utf8(String s) {
    return UTF8String.fromString(s);
  }

  /** Spark's TimestampType: microseconds since the epoch. */
  private static long micros(Instant t) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, t);
  }

  private static ArrayBasedMapData map(Map<String, String> m) {
    Map<String, String> sorted = new TreeMap<>(m);
    return new ArrayBasedMapData(
        new GenericArrayData(sorted.keySet().stream().map(MetadataTable::utf8).toArray()),
        new GenericArrayData(sorted.values().stream().map(MetadataTable::utf8).toArray()));
  }

  private static GenericArrayData ints(List<Integer> ids) {
    return new GenericArrayData(ids.toArray());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return kind.schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> new LocalScan() {
      @Override
      public InternalRow[] rows() {
        return rows;
      }

      @Override
      public StructType readSchema() {
        return kind.schema;
      }

      @Override
      public String description() {
        return name;
      }
    };
  }
}
