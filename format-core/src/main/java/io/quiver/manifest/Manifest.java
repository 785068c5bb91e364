package io.quiver.manifest;

import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The state of a table at one version. Immutable; built by {@code ManifestBuilder} from the previous
 * manifest and a transaction.
 *
 * @param version version number, 1 for a table's first version
 * @param schema table schema with field ids
 * @param fragments fragments in ascending id order
 * @param maxFragmentId highest fragment id ever assigned, empty if none
 * @param maxFieldId highest field id ever assigned (0 if none); ids are never reused
 * @param timestamp commit time as the committer's clock saw it
 * @param writerVersion library and version that wrote it
 * @param config table configuration
 * @param transactionUuid uuid of the transaction committed as this version
 * @param transactionPath relative path of that transaction's file
 * @param readerFeatures features a reader must implement
 * @param writerFeatures features a writer must implement
 */
public record Manifest(
    long version,
    Schema schema,
    List<Fragment> fragments,
    OptionalLong maxFragmentId,
    int maxFieldId,
    Instant timestamp,
    String writerVersion,
    Map<String, String> config,
    String transactionUuid,
    String transactionPath,
    Set<String> readerFeatures,
    Set<String> writerFeatures) {

  /** Format version this library writes. */
  public static final int FORMAT_MAJOR = 1;

  public static final int FORMAT_MINOR = 0;

  /** Reader and writer features this library implements (none are defined in 1.0). */
  public static final Set<String> KNOWN_FEATURES = Set.of();

  public Manifest {
    if (version < 1) {
      throw new IllegalArgumentException("manifest version must be >= 1, got " + version);
    }
    Objects.requireNonNull(schema, "schema");
    fragments = List.copyOf(fragments);
    Objects.requireNonNull(maxFragmentId, "maxFragmentId");
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(writerVersion, "writerVersion");
    config = Map.copyOf(config);
    Objects.requireNonNull(transactionUuid, "transactionUuid");
    Objects.requireNonNull(transactionPath, "transactionPath");
    readerFeatures = Set.copyOf(new TreeSet<>(readerFeatures));
    writerFeatures = Set.copyOf(new TreeSet<>(writerFeatures));
    long previous = -1;
    for (Fragment f : fragments) {
      if (f.id() <= previous) {
        throw new IllegalArgumentException(
            "manifest " + version + " lists fragment " + f.id() + " after " + previous
                + "; fragments must be in ascending, distinct id order");
      }
      previous = f.id();
      if (maxFragmentId.isEmpty() || f.id() > maxFragmentId.getAsLong()) {
        throw new IllegalArgumentException(
            "manifest " + version + " has fragment " + f.id() + " above max fragment id " + maxFragmentId);
      }
    }
    if (maxFieldId < schema.maxFieldId()) {
      throw new IllegalArgumentException(
          "manifest " + version + " max field id " + maxFieldId + " is below the schema's " + schema.maxFieldId());
    }
  }

  /** Rows visible at this version, from metadata alone. */
  public long liveRows() {
    return fragments.stream().mapToLong(Fragment::liveRows).sum();
  }

  /** The id the next new fragment gets. */
  public long nextFragmentId() {
    return maxFragmentId.isPresent() ? maxFragmentId.getAsLong() + 1 : 0;
  }
}
