package io.quiver.manifest;

import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 * @param ledger the idempotence ledger (keys and application sequences committed within the retention);
 *     empty for versions written before the ledger existed (format 1.0)
 * @param indices the table's scalar indices in ascending name order (format 1.3); empty if none
 * @param nextRowId on a table with stable row ids (format 1.4), the id the next new row gets; empty on other tables
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
    Set<String> writerFeatures,
    Optional<CommitLedger> ledger,
    List<ScalarIndex> indices,
    OptionalLong nextRowId) {

  /** Format version this library writes. */
  public static final int FORMAT_MAJOR = 1;

  /**
   * 1.1 adds the idempotence ledger (and its writer feature); 1.0 tables are read and upgraded. 1.2 adds
   * segmented manifests ({@link #SEGMENTED_FEATURE}); a version in the single-file layout is still written as 1.1.
   */
  public static final int FORMAT_MINOR = 2;

  /** Minor format version of a version that lists scalar indices (docs/format.md section 13). */
  public static final int INDICES_MINOR = 3;

  /**
   * Writer feature of a version with scalar indices (format 1.3): a writer that does not maintain them (prune
   * coverage of rewritten fragments, drop indices of dropped fields) refuses to commit rather than silently
   * dropping the user's indices. No reader feature: a reader that ignores indices reads every fragment, which
   * is always correct. Derived on every commit: present exactly while the version lists an index.
   */
  public static final String INDICES_FEATURE = "scalar-indices";

  /** Minor format version of a version of a table with stable row ids (docs/format.md section 14). */
  public static final int ROW_IDS_MINOR = 4;

  /**
   * Writer feature of a table with stable row ids (format 1.4): every fragment carries its rows' lineage (ids,
   * created-at and last-updated-at versions) and the manifest the next id. A writer that does not maintain them
   * (assign ids to new rows, carry them through compaction, stamp updates) refuses to commit rather than dropping
   * them. No reader feature: a reader that ignores lineage reads the right rows.
   */
  public static final String ROW_IDS_FEATURE = "row-ids";

  /** Minor format version of a version in the single-file layout. */
  public static final int SINGLE_FILE_MINOR = 1;

  /**
   * Reader and writer feature of a segmented version (format 1.2, docs/format.md section 11): its version file
   * holds the transaction and a reference to a root file, which lists fragment segment files shared between
   * versions. Readers that do not know it refuse the version instead of reading a table with no fragments.
   */
  public static final String SEGMENTED_FEATURE = "segmented-manifest";

  /**
   * Reader feature of a version that references a data file of format 1.1 or later (record batch bodies
   * may be compressed): a reader that cannot decompress refuses the version instead of failing on a file.
   * Derived from the files on every commit: added with the first compressed file, gone once none is left.
   */
  public static final String COMPRESSION_FEATURE = "compressed-data-files";

  /**
   * Reader and writer feature of a segmented version whose root names segment lists (docs/format.md section
   * 11.1): files that each stand for consecutive segments. Derived from the layout on every commit: present
   * exactly when the root names a list, so a table with fewer than two full segments stays readable by
   * readers of segmented manifests without lists.
   */
  public static final String SEGMENT_LISTS_FEATURE = "segment-lists";

  /**
   * Reader and writer feature of a version of a table with row ids that references a lineage file (docs/format.md
   * section 14.1): a fragment's row lineage stored in {@code _lineage/} instead of inline. A reader without it would
   * find fragments without lineage (and could not say their rows' ids); a writer without it would give their rows
   * new ids. Set from the first version that spills a lineage, and kept.
   */
  public static final String LINEAGE_FILES_FEATURE = "lineage-files";

  /** Reader and writer features this library implements. */
  public static final Set<String> KNOWN_FEATURES =
      Set.of(CommitLedger.WRITER_FEATURE, COMPRESSION_FEATURE, SEGMENTED_FEATURE, SEGMENT_LISTS_FEATURE,
          INDICES_FEATURE, ROW_IDS_FEATURE, LINEAGE_FILES_FEATURE);

  /** A manifest without a ledger, as format 1.0 wrote them. */
  public Manifest(
      long version, Schema schema, List<Fragment> fragments, OptionalLong maxFragmentId, int maxFieldId,
      Instant timestamp, String writerVersion, Map<String, String> config, String transactionUuid,
      String transactionPath, Set<String> readerFeatures, Set<String> writerFeatures) {
    this(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config, transactionUuid,
        transactionPath, readerFeatures, writerFeatures, Optional.empty());
  }

  /** A manifest without indices, as formats 1.1 and 1.2 wrote them. */
  public Manifest(
      long version, Schema schema, List<Fragment> fragments, OptionalLong maxFragmentId, int maxFieldId,
      Instant timestamp, String writerVersion, Map<String, String> config, String transactionUuid,
      String transactionPath, Set<String> readerFeatures, Set<String> writerFeatures,
      Optional<CommitLedger> ledger) {
    this(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config, transactionUuid,
        transactionPath, readerFeatures, writerFeatures, ledger, List.of());
  }

  /** A manifest without row ids, as formats 1.1 to 1.3 wrote them. */
  public Manifest(
      long version, Schema schema, List<Fragment> fragments, OptionalLong maxFragmentId, int maxFieldId,
      Instant timestamp, String writerVersion, Map<String, String> config, String transactionUuid,
      String transactionPath, Set<String> readerFeatures, Set<String> writerFeatures,
      Optional<CommitLedger> ledger, List<ScalarIndex> indices) {
    this(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config, transactionUuid,
        transactionPath, readerFeatures, writerFeatures, ledger, indices, OptionalLong.empty());
  }

  public Manifest {
    if (version < 1) {
      throw new IllegalArgumentException("manifest version must be >= 1, got " + version);
    }
    Objects.requireNonNull(schema, "schema");
    fragments = fragments instanceof FragmentList ? fragments : List.copyOf(fragments);
    Objects.requireNonNull(maxFragmentId, "maxFragmentId");
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(writerVersion, "writerVersion");
    config = Map.copyOf(config);
    Objects.requireNonNull(transactionUuid, "transactionUuid");
    Objects.requireNonNull(transactionPath, "transactionPath");
    readerFeatures = Set.copyOf(new TreeSet<>(readerFeatures));
    writerFeatures = Set.copyOf(new TreeSet<>(writerFeatures));
    Objects.requireNonNull(ledger, "ledger");
    indices = List.copyOf(indices);
    Objects.requireNonNull(nextRowId, "nextRowId");
    if (nextRowId.isPresent() != writerFeatures.contains(ROW_IDS_FEATURE)) {
      throw new IllegalArgumentException("manifest " + version + (nextRowId.isPresent()
          ? " has a next row id but not the writer feature " : " has the writer feature but no next row id: ")
          + ROW_IDS_FEATURE);
    }
    for (int i = 1; i < indices.size(); i++) {
      if (indices.get(i - 1).name().compareTo(indices.get(i).name()) >= 0) {
        throw new IllegalArgumentException("manifest " + version + " lists index '" + indices.get(i).name()
            + "' after '" + indices.get(i - 1).name() + "'; indices must be in ascending, distinct name order");
      }
    }
    if (ledger.isPresent() && !writerFeatures.contains(CommitLedger.WRITER_FEATURE)) {
      throw new IllegalArgumentException(
          "manifest " + version + " carries a ledger but not the writer feature " + CommitLedger.WRITER_FEATURE);
    }
    long previous = -1;
    if (fragments instanceof FragmentList segmented) {
      // Order was checked when the list was built; a segment's own order when it is read.
      long last = segmented.inline().isEmpty()
          ? segmented.segments().isEmpty() ? -1 : segmented.segments().get(segmented.segments().size() - 1).lastFragmentId()
          : segmented.inline().get(segmented.inline().size() - 1).id();
      if (last >= 0 && (maxFragmentId.isEmpty() || last > maxFragmentId.getAsLong())) {
        throw new IllegalArgumentException(
            "manifest " + version + " has fragment " + last + " above max fragment id " + maxFragmentId);
      }
    }
    for (Fragment f : fragments instanceof FragmentList segmented ? segmented.inline() : fragments) {
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

  /** This manifest with {@code newLedger}, and the writer feature that makes other writers maintain it. */
  public Manifest withLedger(CommitLedger newLedger) {
    Set<String> features = new TreeSet<>(writerFeatures);
    features.add(CommitLedger.WRITER_FEATURE);
    return new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, readerFeatures, features, Optional.of(newLedger), indices, nextRowId);
  }

  /** This manifest with {@code features} as its writer features. */
  public Manifest withWriterFeatures(Set<String> features) {
    return new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, readerFeatures, features, ledger, indices, nextRowId);
  }

  /** This manifest with {@code newFragments} (the same fragments, e.g. once a commit wrote its segments). */
  public Manifest withFragments(List<Fragment> newFragments) {
    return new Manifest(version, schema, newFragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, readerFeatures, writerFeatures, ledger, indices, nextRowId);
  }

  /** This manifest with {@code features} as its reader features. */
  public Manifest withReaderFeatures(Set<String> features) {
    return new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, features, writerFeatures, ledger, indices, nextRowId);
  }

  /** This manifest with {@code newIndices}, and {@link #INDICES_FEATURE} among its writer features exactly when any. */
  public Manifest withIndices(List<ScalarIndex> newIndices) {
    Set<String> features = new TreeSet<>(writerFeatures);
    if (newIndices.isEmpty()) {
      features.remove(INDICES_FEATURE);
    } else {
      features.add(INDICES_FEATURE);
    }
    return new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, readerFeatures, features, ledger, newIndices, nextRowId);
  }

  /** This manifest with {@code next} as its next row id and the {@link #ROW_IDS_FEATURE} writer feature. */
  public Manifest withNextRowId(long next) {
    Set<String> features = new TreeSet<>(writerFeatures);
    features.add(ROW_IDS_FEATURE);
    return new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        transactionUuid, transactionPath, readerFeatures, features, ledger, indices, OptionalLong.of(next));
  }

  /** Whether the table has stable row ids (format 1.4). */
  public boolean hasRowIds() {
    return nextRowId.isPresent();
  }

  /** The index named {@code name}, if any. */
  public Optional<ScalarIndex> index(String name) {
    return indices.stream().filter(i -> i.name().equals(name)).findFirst();
  }

  /** Whether this version is in the segmented layout (format 1.2): its fragments are a {@link FragmentList}. */
  public boolean segmented() {
    return fragments instanceof FragmentList;
  }

  /** The segments of a segmented version, in fragment-id order; empty in the single-file layout. */
  public List<Segment> segments() {
    return fragments instanceof FragmentList list ? list.segments() : List.of();
  }

  /** Whether a data file or overlay of this version may have compressed record batch bodies (format 1.1). */
  public boolean referencesCompressedFiles() {
    if (fragments instanceof FragmentList list && list.segments().stream().anyMatch(Segment::compressed)) {
      return true;
    }
    for (Fragment f : fragments instanceof FragmentList list ? list.inline() : fragments) {
      if (f.files().stream().anyMatch(DataFile::mayBeCompressed)
          || f.overlays().stream().anyMatch(o -> o.dataFile().mayBeCompressed())) {
        return true;
      }
    }
    return false;
  }

  /** Rows visible at this version, from metadata alone. */
  public long liveRows() {
    if (fragments instanceof FragmentList list) {
      return list.segments().stream().mapToLong(Segment::liveRows).sum()
          + list.inline().stream().mapToLong(Fragment::liveRows).sum();
    }
    return fragments.stream().mapToLong(Fragment::liveRows).sum();
  }

  /** The id the next new fragment gets. */
  public long nextFragmentId() {
    return maxFragmentId.isPresent() ? maxFragmentId.getAsLong() + 1 : 0;
  }
}
