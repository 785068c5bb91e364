package io.quiver.internal.maintenance;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.file.MetadataCache;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.table.TagStore;
import io.quiver.internal.table.TransactionBatches;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.RowLineage;
import io.quiver.manifest.Segment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.store.ObjectInfo;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes old versions and the files no kept version references.
 *
 * <p>Order matters for safety: every manifest is read first (an unreadable one stops the cleanup before
 * anything is deleted, since its references are unknown); then the expired manifests are removed, oldest
 * first; then unreferenced files older than the safety window, and the store's own temporaries older than
 * it ({@link io.quiver.store.ObjectStore#abandonedTemporaries}: files of writers killed mid-write, which only
 * the store can tell apart). A crash in between leaves only unreferenced files, which the next cleanup
 * removes. A manifest whose removal fails keeps its files.
 */
final public class Cleaner {
  private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);

  /** Prefixes whose files cleanup may remove. Anything else under the root is left alone. */
  static final String TRANSACTIONS_PREFIX = "_transactions/";
  static final String INDICES_PREFIX = "_indices/";

  private final TableIo io;
  private final MetadataCache cache;
  private final Clock clock;

  /** {@code cache} is the session cache {@code io} reads through; removed files are evicted from it. */
  public Cleaner(TableIo io, MetadataCache cache, Clock clock) {
    this.io = io;
    this.cache = cache;
    this.clock = clock;
  }

  /** Every file a version references: data, overlay and deletion files, and its transaction file. */
  static public Set<String> referencedBy(Manifest m) {
    Set<String> out = new HashSet<>();
    addReferences(m, out, new HashSet<>());
    return out;
  }

  /**
   * Adds what {@code m} references to {@code out}: data, overlay and deletion files, its transaction file, and
   * for a segmented version its root, segment list and segment files. A segment in {@code seen} was added already (its
   * fragments are shared by every version that lists it, so each is read once per cleanup).
   */
  static void addReferences(Manifest m, Set<String> out, Set<String> seen) {
    List<Fragment> own = m.fragments();
    if (m.fragments() instanceof FragmentList segmented) {
      out.add(MetadataCodec.rootPath(m.version(), m.transactionUuid()));
      segmented.lists().forEach(l -> out.add(l.path()));
      for (int i = 0; i < segmented.segments().size(); i++) {
        Segment s = segmented.segments().get(i);
        out.add(s.path());
        if (seen.add(s.path())) {
          segmented.fragmentsOf(i).forEach(f -> addReferences(f, out));
        }
      }
      own = segmented.inline();
    }
    own.forEach(f -> addReferences(f, out));
    m.indices().forEach(index -> index.segments().forEach(segment -> out.add(segment.path())));
    if (!m.transactionPath().isEmpty()) {
      out.add(m.transactionPath());
    }
  }

  private static void addReferences(Fragment f, Set<String> out) {
    for (DataFile d : f.files()) {
      out.add(d.path());
    }
    f.deletionFile().map(DeletionFile::path).ifPresent(out::add);
    for (Overlay o : f.overlays()) {
      out.add(o.dataFile().path());
    }
    f.lineage().flatMap(RowLineage::file).ifPresent(l -> out.add(l.path()));
  }

  /**
   * Removes (or, in a dry run, only records) every transaction batch over a version at most {@code latest}
   * that is not in {@code retained}: such a version was removed, or is being removed, by a cleanup.
   * Batches of blocks newer than the listing are left alone. Removed keys go to {@code removed} with their
   * size (a batch written again after an earlier pass removed it counts once); keys that could not be
   * deleted to {@code failed}.
   */
  private void removeBatches(Set<Long> retained, long latest, boolean dryRun, Map<String, Long> removed,
      List<String> failed) {
    List<String> stale = new ArrayList<>();
    Map<String, Long> sizes = new HashMap<>();
    for (ObjectInfo info : io.store().listAll(TransactionBatches.PREFIX)) {
      java.util.OptionalLong first = TransactionBatches.firstOfPath(info.key());
      if (first.isEmpty()) {
        continue;
      }
      long end = Math.min(latest, first.getAsLong() + TransactionBatches.SIZE - 1);
      for (long v = first.getAsLong(); v <= end; v++) {
        if (!retained.contains(v)) {
          stale.add(info.key());
          sizes.put(info.key(), info.size());
          break;
        }
      }
    }
    Set<String> notDeleted = new HashSet<>(dryRun || stale.isEmpty() ? List.of() : io.store().deleteAll(stale));
    for (String key : stale) {
      if (notDeleted.contains(key)) {
        failed.add(key);
      } else {
        removed.put(key, sizes.get(key));
        failed.remove(key);
      }
    }
  }

  public CleanupReport run(CleanupOptions options) {
    Instant now = clock.instant();
    Instant cutoff = options.cutoff(now);
    Instant youngAfter = now.minus(options.safetyWindow());

    List<Long> versions = new ArrayList<>(io.commitStore().listVersions(Integer.MAX_VALUE)); // newest first
    if (versions.isEmpty()) {
      throw new TableNotFoundException(
          "no Quiver table at " + io.location() + " (no committed version); nothing to clean up");
    }
    // A listing may lag behind the newest claims (an eventually consistent or cached listing): reachability is
    // never rooted at a stale latest, whose successors' files would look unreferenced. Versions are claimed one
    // after another, so the ones the listing missed are the listed latest + 1, + 2, ...
    for (long next = versions.get(0) + 1; io.commitStore().read(next).isPresent(); next++) {
      versions.add(0, next);
    }
    long latest = versions.get(0);
    Set<Long> tagged = new HashSet<>(new TagStore(io, clock).list().values());

    // 1. Read every manifest; decide which versions go.
    Set<String> referenced = new HashSet<>();
    Set<String> keptSegments = new HashSet<>();
    Map<Long, Set<String>> referencesOfExpired = new HashMap<>();
    Map<Long, Long> manifestBytes = new HashMap<>();
    List<Long> expired = new ArrayList<>();
    for (long v : versions) {
      String location = io.commitStore().locationOf(v);
      Optional<byte[]> bytes = io.commitStore().read(v);
      if (bytes.isEmpty()) {
        continue; // removed since the listing (another cleanup)
      }
      ManifestAndTransaction decoded = io.decodeVersion(v, bytes.get());
      Manifest m = decoded.manifest();
      if (m.version() != v) {
        throw new CorruptFileException(
            location, "file name says version " + v + " but the manifest says " + m.version()
                + "; cleanup stopped before deleting anything");
      }
      boolean keep = v == latest || tagged.contains(v) || !m.timestamp().isBefore(cutoff);
      if (keep) {
        addReferences(m, referenced, keptSegments);
      } else {
        expired.add(v);
        // Only what kept versions do not reference matters here (it is kept if this version's removal fails).
        Set<String> own = new HashSet<>();
        addReferences(m, own, new HashSet<>(keptSegments));
        referencesOfExpired.put(v, own);
        manifestBytes.put(v, (long) bytes.get().length);
      }
    }
    Collections.sort(expired);
    StagingCleanup.Plan staging = StagingCleanup.plan(io.store(), youngAfter);
    referenced.addAll(staging.protectedFiles());

    // 2. Remove expired manifests, oldest first. Transaction batches over versions that go are removed before
    // (so no commit finds one for a removed version) and again after (one a committer wrote meanwhile).
    Set<Long> retained = new HashSet<>(versions);
    expired.forEach(retained::remove);
    List<String> failed = new ArrayList<>();
    Map<String, Long> batchesRemoved = new HashMap<>();
    removeBatches(retained, latest, options.dryRun(), batchesRemoved, failed);
    List<Long> removed = new ArrayList<>();
    long bytesFreed = 0;
    for (long v : expired) {
      if (!options.dryRun()) {
        try {
          io.commitStore().remove(v);
        } catch (StoreException e) {
          LOG.warn("cleanup could not remove version {} of {}: {}", v, io.location(), e.getMessage());
          failed.add(io.commitStore().locationOf(v));
          referenced.addAll(referencesOfExpired.get(v)); // still a version: keep its files
          continue;
        }
        cache.invalidate(io.commitStore().locationOf(v));
      }
      removed.add(v);
      bytesFreed += manifestBytes.get(v);
    }

    if (!options.dryRun() && !expired.isEmpty()) {
      removeBatches(retained, latest, false, batchesRemoved, failed);
    }
    for (long size : batchesRemoved.values()) {
      bytesFreed += size;
    }

    // 3. Remove unreferenced files that are older than the safety window.
    List<String> candidates = new ArrayList<>();
    Map<String, Long> sizes = new HashMap<>();
    for (String prefix : List.of(DataFile.DATA_PREFIX, DeletionFile.DELETIONS_PREFIX, TRANSACTIONS_PREFIX,
        MetadataCodec.ROOTS_PREFIX, Segment.PREFIX, INDICES_PREFIX, RowLineage.File.PREFIX)) {
      for (ObjectInfo info : io.store().listAll(prefix)) {
        if (referenced.contains(info.key()) || !info.lastModified().isBefore(youngAfter)) {
          continue;
        }
        candidates.add(info.key());
        sizes.put(info.key(), info.size());
      }
    }
    Set<String> notDeleted = new HashSet<>();
    if (!options.dryRun() && !candidates.isEmpty()) {
      notDeleted.addAll(io.store().deleteAll(candidates));
      for (String key : candidates) {
        if (key.startsWith(DataFile.DATA_PREFIX) && !notDeleted.contains(key)) {
          cache.invalidate(io.store().locationOf(key));
        }
      }
    }
    long stagingRemoved = 0;
    if (!staging.removable().isEmpty()) {
      List<String> keys = staging.removable().stream().map(ObjectInfo::key).toList();
      Set<String> stagingFailed = new HashSet<>(options.dryRun() ? List.of() : io.store().deleteAll(keys));
      for (ObjectInfo info : staging.removable()) {
        if (stagingFailed.contains(info.key())) {
          failed.add(info.key());
        } else {
          stagingRemoved++;
          bytesFreed += info.size();
        }
      }
    }
    // 4. The store's own temporaries of writers that died (never objects, so never in a listing above).
    List<ObjectInfo> temporaries = options.dryRun()
        ? io.store().abandonedTemporaries(youngAfter)
        : io.store().deleteAbandonedTemporaries(youngAfter);
    for (ObjectInfo temporary : temporaries) {
      bytesFreed += temporary.size();
    }
    long data = 0;
    long deletions = 0;
    long transactions = 0;
    long segmentFiles = 0;
    long indexFiles = 0;
    for (String key : candidates) {
      if (notDeleted.contains(key)) {
        failed.add(key);
        continue;
      }
      bytesFreed += sizes.get(key);
      if (key.startsWith(DataFile.DATA_PREFIX)) {
        data++;
      } else if (key.startsWith(DeletionFile.DELETIONS_PREFIX)) {
        deletions++;
      } else if (key.startsWith(MetadataCodec.ROOTS_PREFIX) || key.startsWith(Segment.PREFIX)
          || key.startsWith(RowLineage.File.PREFIX)) {
        // Lineage files are manifest content moved out of line, like segments.
        segmentFiles++;
      } else if (key.startsWith(INDICES_PREFIX)) {
        indexFiles++;
      } else {
        transactions++;
      }
    }
    transactions += batchesRemoved.size();
    CleanupReport report =
        new CleanupReport(removed, removed.size(), transactions, data, deletions, stagingRemoved, temporaries.size(),
            bytesFreed, failed, options.dryRun(), segmentFiles, indexFiles);
    LOG.debug("cleanup of {} with {}: {}", io.location(), options, report);
    return report;
  }
}
