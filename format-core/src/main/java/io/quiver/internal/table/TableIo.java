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
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Segment;
import io.quiver.manifest.SegmentList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The table's storage: its object store, how versions are claimed, and cached metadata reads. */
final public class TableIo {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TableIo.class);
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
    if (cached == null) {
      return Optional.empty();
    }
    cacheLists(cached.value().manifest());
    return Optional.of(cached.value());
  }

  /**
   * Caches the segment lists a loaded version names, so the next version's root (which names mostly the same
   * lists) reads none of them again. Done after the version's own cache entry is computed: the cache may not
   * be updated from inside that computation.
   */
  private void cacheLists(Manifest manifest) {
    if (manifest.fragments() instanceof FragmentList list && !list.lists().isEmpty()) {
      for (SegmentList l : list.lists()) {
        String location = store.locationOf(l.path());
        if (cache.getIfPresent(location) == null) {
          CachedList value = new CachedList(List.copyOf(list.segmentsOf(l)), l.sizeBytes());
          cache.get(location, ignored -> value);
        }
      }
    }
  }

  private CachedVersion decode(long version, String location) {
    Optional<byte[]> bytes = commitStore.read(version);
    return bytes.isEmpty() ? null : decode(version, location, bytes);
  }

  /**
   * Decodes the version file {@code bytes} of {@code version} (and reads its root when it is segmented), without
   * caching the result: for tools that read every version once (cleanup, validation).
   */
  public ManifestAndTransaction decodeVersion(long version, byte[] bytes) {
    return decode(version, commitStore.locationOf(version), Optional.of(bytes)).value();
  }

  private CachedVersion decode(long version, String location, Optional<byte[]> bytes) {
    MetadataCodec.VersionFile file = MetadataCodec.decodeVersionFile(bytes.get(), location);
    if (file instanceof MetadataCodec.Whole whole) {
      ManifestAndTransaction decoded = whole.decoded();
      if (decoded.manifest().version() != version) {
        throw new CorruptFileException(location,
            "file name says version " + version + " but the manifest says " + decoded.manifest().version());
      }
      if (!(decoded.manifest().fragments() instanceof FragmentList)) {
        LineageFiles.bind(decoded.manifest().fragments(), lineageLoader);
      }
      return new CachedVersion(decoded, bytes.get().length);
    }
    MetadataCodec.Rooted rooted = (MetadataCodec.Rooted) file;
    if (rooted.version() != version) {
      throw new CorruptFileException(
          location, "file name says version " + version + " but the manifest says " + rooted.version());
    }
    String rootLocation = store.locationOf(rooted.rootPath());
    byte[] root;
    try {
      root = store.read(rooted.rootPath());
    } catch (ObjectNotFoundException e) {
      throw new CorruptFileException(rootLocation, "the root file of version " + version + " (named by " + location
          + ") is missing; the table is damaged: restore the file from a backup, or check out another version", e);
    }
    ManifestAndTransaction decoded = MetadataCodec.decodeRoot(root, rootLocation, rooted, segmentLoader);
    LineageFiles.bind(((FragmentList) decoded.manifest().fragments()).inline(), lineageLoader);
    return new CachedVersion(decoded, bytes.get().length + root.length);
  }

  /** A segment's decoded fragments in the cache; weighed by the encoded size, as versions are. */
  private record CachedSegment(List<Fragment> fragments, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
    }
  }

  /**
   * The fragments of a segment a root names, read once per session (segments are immutable and shared by
   * every version that lists them) and checked against what the root says of them.
   */
  public List<Fragment> loadSegment(Segment segment) {
    String location = store.locationOf(segment.path());
    return cache.get(location, ignored -> {
      byte[] bytes;
      try {
        bytes = store.read(segment.path());
      } catch (ObjectNotFoundException e) {
        throw new CorruptFileException(location, "segment file " + segment.path() + " (fragments "
            + segment.firstFragmentId() + ".." + segment.lastFragmentId() + ") is missing; the table is damaged, or"
            + " a cleanup removed a version this handle still reads: re-open the latest version", e);
      }
      return new CachedSegment(
          LineageFiles.bind(MetadataCodec.decodeSegment(bytes, location, segment), lineageLoader), bytes.length);
    }).fragments();
  }

  /** Reads lineage files through the session cache (docs/format.md section 14.1). */
  private final io.quiver.manifest.RowLineage.Loader lineageLoader = this::loadLineage;

  /**
   * The runs of a lineage file of a fragment of {@code rows} rows, read once per session and checked against the
   * reference.
   *
   * @throws CorruptFileException naming the file when it is missing, truncated or damaged
   */
  public io.quiver.manifest.RowLineage loadLineage(io.quiver.manifest.RowLineage.File file, long rows) {
    return LineageFiles.load(store, cache, file, rows);
  }

  /** What reads this table's lineage files, for lineages decoded elsewhere (a transaction, a worker's result). */
  public io.quiver.manifest.RowLineage.Loader lineageLoader() {
    return lineageLoader;
  }

  /** Reads segments through the cache; several at once on the caller and the shared history pool. */
  private final FragmentList.Loader segmentLoader = new FragmentList.Loader() {
    @Override
    public List<Fragment> load(Segment segment) {
      return loadSegment(segment);
    }

    @Override
    public List<Segment> loadList(SegmentList list) {
      return TableIo.this.loadList(list);
    }

    @Override
    public List<List<Fragment>> loadAll(List<Segment> segments) {
      @SuppressWarnings("unchecked")
      List<Fragment>[] out = new List[segments.size()];
      // Decoding is CPU-bound: one thread per core beside the caller is enough to overlap reads and decoding.
      inParallel(segments.size(), 2, Math.min(8, Runtime.getRuntime().availableProcessors()),
          i -> out[i] = loadSegment(segments.get(i)));
      return java.util.Arrays.asList(out);
    }
  };

  /** Puts the segments and segment lists this process just wrote into the cache, so that nothing reads them back. */
  public void cacheWritten(FragmentList written) {
    for (Map.Entry<String, FragmentList.Unwritten> e : written.unwritten().entrySet()) {
      CachedSegment value = new CachedSegment(e.getValue().fragments(), e.getValue().encoded().length);
      cache.get(store.locationOf(e.getKey()), ignored -> value);
    }
    for (SegmentList list : written.lists()) {
      byte[] bytes = written.unwrittenLists().get(list.path());
      if (bytes != null) {
        CachedList value = new CachedList(List.copyOf(written.segmentsOf(list)), bytes.length);
        cache.get(store.locationOf(list.path()), ignored -> value);
      }
    }
  }

  /** A segment list's decoded segments in the cache. */
  private record CachedList(List<Segment> segments, long bytes) implements MetadataCache.Weighable {
    @Override
    public long estimatedBytes() {
      return bytes * 4 + 256;
    }
  }

  /**
   * The segments a segment list names, read once per session (lists are immutable and shared by every version
   * that names them) and checked against what the root says of them.
   */
  public List<Segment> loadList(SegmentList list) {
    String location = store.locationOf(list.path());
    // Read while a version is being decoded into the cache, which cannot be updated from inside that
    // computation: a miss is read here and cached once the version is (cacheLists).
    CachedList cached = cache.getIfPresent(location);
    if (cached != null) {
      return cached.segments();
    }
    byte[] bytes;
    try {
      bytes = store.read(list.path());
    } catch (ObjectNotFoundException e) {
      throw new CorruptFileException(location, "segment list file " + list.path() + " (fragments "
          + list.firstFragmentId() + ".." + list.lastFragmentId() + ") is missing; the table is damaged, or"
          + " a cleanup removed a version this handle still reads: re-open the latest version", e);
    }
    return MetadataCodec.decodeSegmentList(bytes, location, list);
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

  /** Threads that read version files for {@link #loadTransactions} beside the caller (idle ones end). */
  private static final java.util.concurrent.ExecutorService HISTORY_READERS =
      io.quiver.store.support.StoreThreads.bounded("quiver-history", 8);

  /** Reads done by the caller alone: below this, handing reads to other threads costs more than it saves. */
  private static final int PARALLEL_FROM = 4;

  /**
   * The transactions committed as versions {@code from..to} (inclusive), in version order, each empty when
   * that version's transaction is not there (a cleanup removed the version and no transaction batch holds
   * it), without decoding any manifest. A complete block of versions that the range covers at least two of
   * is read from its transaction batch ({@link TransactionBatches}), one file instead of up to 64; the other
   * versions, and a block whose batch is missing or does not decode, from their version files. Reads are
   * done by the caller and, for more than a few, up to 8 threads beside it, so catching up on 1,000 versions
   * costs about 50 reads, a few store round trips; a thread of the shared pool that is busy elsewhere only
   * leaves more of the reads to the caller.
   *
   * @throws io.quiver.exceptions.QuiverException the first failure of any read, after every read started
   *     has ended
   */
  public List<Optional<io.quiver.internal.txn.Transaction>> loadTransactions(long from, long to) {
    int count = Math.toIntExact(Math.max(0, to - from + 1));
    @SuppressWarnings("unchecked")
    Optional<io.quiver.internal.txn.Transaction>[] found = new Optional[count];
    // Units of work: [start, end] of versions, and whether they come from the batch of start's block.
    List<long[]> units = new java.util.ArrayList<>();
    for (long v = from; v <= to; ) {
      long first = TransactionBatches.firstOf(v);
      long last = first + TransactionBatches.SIZE - 1;
      long end = Math.min(last, to);
      if (last <= to && end - v + 1 >= 2) {
        units.add(new long[] {v, end, 1});
        v = end + 1;
      } else {
        units.add(new long[] {v, v, 0});
        v++;
      }
    }
    inParallel(units.size(), i -> {
      long[] unit = units.get(i);
      Optional<List<io.quiver.internal.txn.Transaction>> batch =
          unit[2] == 1 ? tryLoadBatch(TransactionBatches.firstOf(unit[0])) : Optional.empty();
      for (long v = unit[0]; v <= unit[1]; v++) {
        found[(int) (v - from)] = batch.isPresent()
            ? Optional.of(batch.get().get((int) (v - TransactionBatches.firstOf(v))))
            : tryLoadTransaction(v);
      }
    });
    return java.util.Arrays.asList(found);
  }

  /**
   * The version files of {@code from..to} (inclusive) as stored, each empty when the version is not there,
   * read as {@link #loadTransactions} reads them.
   */
  List<Optional<byte[]>> readVersionFiles(long from, long to) {
    int count = Math.toIntExact(Math.max(0, to - from + 1));
    @SuppressWarnings("unchecked")
    Optional<byte[]>[] found = new Optional[count];
    inParallel(count, i -> found[i] = commitStore.read(from + i));
    return java.util.Arrays.asList(found);
  }

  /** The transactions of the batch starting at {@code first}, or empty when it is missing or unreadable. */
  private Optional<List<io.quiver.internal.txn.Transaction>> tryLoadBatch(long first) {
    String key = TransactionBatches.path(first);
    byte[] bytes;
    try {
      bytes = store.read(key);
    } catch (ObjectNotFoundException e) {
      return Optional.empty();
    }
    try {
      return Optional.of(MetadataCodec.decodeTransactionBatch(bytes, store.locationOf(key), first,
          TransactionBatches.SIZE));
    } catch (CorruptFileException | io.quiver.exceptions.UnsupportedFormatException e) {
      LOG.warn("ignoring transaction batch {} (reading its versions' files instead): {}", store.locationOf(key),
          e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Runs {@code task} for 0 .. count-1 on the caller and, from {@link #PARALLEL_FROM} tasks, up to 8 threads
   * of the shared pool; after the first failure no new task starts, and it is thrown once all started ones end.
   */
  private static void inParallel(int count, java.util.function.IntConsumer task) {
    inParallel(count, PARALLEL_FROM, 8, task);
  }

  /**
   * {@link #inParallel(int, java.util.function.IntConsumer)} from {@code from} tasks, with at most {@code
   * maxHelpers} threads beside the caller.
   */
  private static void inParallel(int count, int from, int maxHelpers, java.util.function.IntConsumer task) {
    java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<RuntimeException> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Runnable reader = () -> {
      for (int i = next.getAndIncrement(); i < count && failure.get() == null; i = next.getAndIncrement()) {
        try {
          task.accept(i);
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
        }
      }
    };
    int helpers = count < from ? 0 : Math.min(maxHelpers, Math.max(1, count / 2));
    List<java.util.concurrent.Future<?>> started = new java.util.ArrayList<>(helpers);
    // Per helper: 0 not started, 1 running, 2 skipped (the caller found it not started once every task was taken).
    java.util.concurrent.atomic.AtomicIntegerArray states = new java.util.concurrent.atomic.AtomicIntegerArray(helpers);
    for (int h = 0; h < helpers; h++) {
      int helper = h;
      started.add(HISTORY_READERS.submit(() -> {
        if (states.compareAndSet(helper, 0, 1)) {
          reader.run();
        }
      }));
    }
    reader.run();
    boolean interrupted = false;
    for (int h = 0; h < helpers; h++) {
      // Every task is taken once the caller's loop ends: a helper the pool has not started yet (its threads busy
      // elsewhere) would find nothing to do, so it is skipped rather than waited for.
      if (states.compareAndSet(h, 0, 2)) {
        continue;
      }
      java.util.concurrent.Future<?> f = started.get(h);
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          failure.compareAndSet(null, new IllegalStateException("reading table metadata failed", e.getCause()));
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  private Optional<io.quiver.internal.txn.Transaction> tryLoadTransaction(long version) {
    String location = commitStore.locationOf(version);
    CachedVersion cached = cache.getIfPresent(location);
    if (cached != null) {
      return Optional.of(cached.value().transaction());
    }
    return commitStore.read(version).map(bytes -> MetadataCodec.decodeManifestTransaction(bytes, location));
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
