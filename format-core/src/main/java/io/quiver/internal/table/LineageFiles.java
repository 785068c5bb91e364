package io.quiver.internal.table;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.file.MetadataCache;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.RowLineage;
import io.quiver.store.ObjectStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Lineage files (format 1.4, reader and writer feature {@code lineage-files}; docs/format.md section 14.1): a
 * fragment whose row lineage encodes above the table's {@link #CONFIG_KEY} stores its runs in an immutable file
 * {@code _lineage/{uuid}.lin} and references it (path, size, CRC-32C) instead, so a compaction of scattered rows does
 * not grow the manifest that every open and commit reads. Readers read a file only when the lineage is needed (the
 * lineage columns, take by row id, the change feed, a commit that changes the fragment), once per session.
 */
public final class LineageFiles {
  /** Table configuration: inline lineage above this many encoded bytes goes to a file; {@code 0} never spills. */
  public static final String CONFIG_KEY = "write.lineage.spill-bytes";

  /**
   * 64 KiB: an append's lineage is a few dozen bytes and stays inline; a fragment whose rows were scattered by
   * thousands of row deltas spills. A fragment's lineage in a file costs one more read, but only when lineage is
   * needed; inline, it costs its bytes on every open and every commit of every version that keeps the fragment.
   */
  public static final long DEFAULT_SPILL_BYTES = 64 * 1024;

  private LineageFiles() {}

  /** Checks the value of {@link #CONFIG_KEY} in a configuration update, if it sets it. */
  public static void check(Map<String, String> upserts) {
    String value = upserts.get(CONFIG_KEY);
    if (value != null) {
      threshold(Map.of(CONFIG_KEY, value));
    }
  }

  /** The spill threshold of a table with {@code config}; {@link Long#MAX_VALUE} when it never spills. */
  public static long threshold(Map<String, String> config) {
    String value = config.get(CONFIG_KEY);
    if (value == null) {
      return DEFAULT_SPILL_BYTES;
    }
    long bytes;
    try {
      bytes = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      bytes = -1;
    }
    if (bytes < 0) {
      throw new InvalidArgumentException("table configuration '" + CONFIG_KEY + "' must be a byte count >= 0 (0: keep"
          + " every lineage inline), found '" + value + "'");
    }
    return bytes == 0 ? Long.MAX_VALUE : bytes;
  }

  /**
   * {@code f} with its lineage in a new lineage file when it is inline and encodes above {@code threshold}; the
   * file's key is added to {@code written}. A lineage already in a file, or small, is left as it is.
   */
  public static Fragment spill(ObjectStore store, Fragment f, long threshold, List<String> written) {
    if (f.lineage().isEmpty() || f.lineage().get().file().isPresent()) {
      return f;
    }
    RowLineage l = f.lineage().get();
    if (l.hasFresh() || MetadataCodec.inlineLineageBytes(l) <= threshold) {
      return f;
    }
    byte[] bytes = MetadataCodec.encodeLineageFile(l);
    String path = RowLineage.File.PREFIX + UUID.randomUUID() + ".lin";
    store.write(path, bytes);
    written.add(path);
    long[] span = l.idSpan(); // null only without ids: none to find in the file, so any span is true; record none
    return f.withLineage(Optional.of(l.storedIn(span == null
        ? new RowLineage.File(path, bytes.length, MetadataCodec.lineageFileCrc(bytes))
        : new RowLineage.File(path, bytes.length, MetadataCodec.lineageFileCrc(bytes), span[0], span[1]))));
  }

  /** {@link #spill} for each fragment. */
  public static List<Fragment> spillAll(ObjectStore store, List<Fragment> fragments, long threshold,
      List<String> written) {
    return fragments.stream().map(f -> spill(store, f, threshold, written)).toList();
  }

  /** Whether {@code f}'s lineage is in a lineage file. */
  public static boolean inFile(Fragment f) {
    return f.lineage().isPresent() && f.lineage().get().file().isPresent();
  }

  /** Lets the lineages in files among {@code fragments} read them through {@code loader}; returns them. */
  public static List<Fragment> bind(List<Fragment> fragments, RowLineage.Loader loader) {
    for (Fragment f : fragments) {
      if (inFile(f)) {
        f.lineage().get().bind(loader);
      }
    }
    return fragments;
  }

  /** A lineage file's runs in the cache; weighed by the encoded size, as manifests are. */
  private record Cached(RowLineage lineage, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
    }
  }

  /**
   * The runs of lineage file {@code ref} of a fragment of {@code rows} rows, read once per session and checked.
   *
   * @throws CorruptFileException naming the file when it is missing, truncated, replaced or damaged
   */
  static RowLineage load(ObjectStore store, MetadataCache cache, RowLineage.File ref, long rows) {
    String location = store.locationOf(ref.path());
    return cache.get(location, ignored -> {
      byte[] bytes;
      try {
        bytes = store.read(ref.path());
      } catch (ObjectNotFoundException e) {
        throw new CorruptFileException(location, "lineage file " + ref.path() + " (the row ids of a fragment of " + rows
            + " rows) is missing; the table is damaged, or a cleanup removed a version this handle still reads:"
            + " re-open the latest version, or restore the file from a backup", e);
      }
      return new Cached(MetadataCodec.decodeLineageFile(bytes, location, ref, rows), bytes.length);
    }).lineage();
  }
}
