package io.quiver.internal.table;

import io.quiver.dataset.Session;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.file.DataFileReader;
import io.quiver.internal.file.MetadataCache;
import io.quiver.internal.file.ReadOptions;
import io.quiver.store.CommitStore;
import io.quiver.store.ObjectStore;
import java.util.Optional;

/** The table's storage: its object store, how versions are claimed, and cached metadata reads. */
final public class TableIo {
  private final ObjectStore store;
  private final CommitStore commitStore;
  private final Session session;
  private final MetadataCache cache;
  private final DataFileReader dataFiles;

  public TableIo(ObjectStore store, CommitStore commitStore, Session session) {
    this(store, commitStore, session, ReadOptions.defaults());
  }

  /** @param readOptions how data files are fetched (coalescing, the scans' fetch plan and its bounds) */
  public TableIo(ObjectStore store, CommitStore commitStore, Session session, ReadOptions readOptions) {
    this.store = store;
    this.commitStore = commitStore;
    this.session = session;
    this.cache = MetadataCache.of(session);
    this.dataFiles = new DataFileReader(store, cache, readOptions);
  }
  /** The session's metadata cache (manifests and data-file footers). */
  public MetadataCache metadataCache() {
    return cache;
  }


  /**
   * The same table through another object store (a decorator of this one's): the same commit store and
   * session, so versions, caches and claims are shared.
   */
  public TableIo withStore(ObjectStore decorated) {
    return new TableIo(decorated, commitStore, session, dataFiles.options());
  }

  public ObjectStore store() {
    return store;
  }

  public CommitStore commitStore() {
    return commitStore;
  }

  public DataFileReader dataFiles() {
    return dataFiles;
  }

  public String location() {
    return store.location();
  }

  /** A cache entry for a decoded version; weighed by its encoded size (a fair proxy for its heap). */
  private record CachedVersion(ManifestAndTransaction value, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
    }
  }

  /** The decoded manifest (and its transaction) of a version, or empty if it was never committed. */
  public Optional<ManifestAndTransaction> tryLoad(long version) {
    String location = commitStore.locationOf(version);
    CachedVersion cached = cache.get(location, ignored -> decode(version, location));
    return cached == null ? Optional.empty() : Optional.of(cached.value());
  }

  private CachedVersion decode(long version, String location) {
    Optional<byte[]> bytes = commitStore.read(version);
    if (bytes.isEmpty()) {
      return null;
    }
    ManifestAndTransaction decoded = MetadataCodec.decodeManifest(bytes.get(), location);
    if (decoded.manifest().version() != version) {
      throw new CorruptFileException(
          location, "file name says version " + version + " but the manifest says " + decoded.manifest().version());
    }
    return new CachedVersion(decoded, bytes.get().length);
  }

  /**
   * The transaction committed as {@code version}, without decoding its manifest (unless the version is
   * cached already). For catching up on many versions, where only the newest manifest matters.
   */
  public io.quiver.internal.txn.Transaction loadTransaction(long version) {
    String location = commitStore.locationOf(version);
    CachedVersion cached = cache.getIfPresent(location);
    if (cached != null) {
      return cached.value().transaction();
    }
    byte[] bytes = commitStore.read(version).orElseThrow(() -> new VersionNotFoundException(
        version, "version " + version + " of table " + location() + " disappeared while a commit was reading it;"
            + " a cleanup removed it. Nothing was committed; re-open the latest version and retry."));
    return MetadataCodec.decodeManifestTransaction(bytes, location);
  }

  /** Like {@link #tryLoad} but a missing version is an error naming what exists. */
  public ManifestAndTransaction load(long version) {
    return tryLoad(version)
        .orElseThrow(
            () -> {
              Optional<Long> latest = commitStore.latestVersion();
              return new VersionNotFoundException(
                  version,
                  "version " + version + " of table " + location() + " does not exist"
                      + latest.map(l -> "; the latest version is " + l).orElse("; the table has no versions"));
            });
  }

  /** The latest committed version, or a typed error when the location holds no table. */
  public ManifestAndTransaction loadLatest() {
    long latest =
        commitStore
            .latestVersion()
            .orElseThrow(
                () ->
                    new TableNotFoundException(
                        "no Quiver table at " + location() + " (no committed version in "
                            + commitStore.location() + "); create it first"));
    return load(latest);
  }
}
