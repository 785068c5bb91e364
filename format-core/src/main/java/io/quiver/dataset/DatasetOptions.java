package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.file.ReadOptions;
import io.quiver.internal.table.TableIo;
import io.quiver.store.CommitStore;
import io.quiver.store.FetchTuning;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Settings of a {@link Dataset} handle. Build with {@link #builder()}; every setting has a default.
 */
public final class DatasetOptions {
  private final Optional<BufferAllocator> allocator;
  private final Map<String, String> storeOptions;
  private final Session session;
  private final int rowsPerBatch;
  private final long maxRowsPerFragment;
  private final CommitOptions commitOptions;
  private final Function<ObjectStore, CommitStore> commitStoreFactory;
  private final ObjectStores registry;
  private final Clock clock;
  private final Integer coalesceGapBytes; // null: chosen by the store (ObjectStore#fetchTuning), as below
  private final Long fetchRequestBytes;
  private final Integer fetchRequestsInFlight;
  private final Integer takeGapBytes;
  private final long fetchAheadBytes;
  private final boolean fetchPlans;

  private DatasetOptions(Builder b) {
    this.allocator = Optional.ofNullable(b.allocator);
    this.storeOptions = Map.copyOf(b.storeOptions);
    this.session = b.session != null ? b.session : SharedSession.INSTANCE;
    this.rowsPerBatch = b.rowsPerBatch;
    this.maxRowsPerFragment = b.maxRowsPerFragment;
    this.commitOptions = b.commitOptions;
    this.commitStoreFactory = b.commitStoreFactory;
    this.registry = b.registry != null ? b.registry : ObjectStores.defaultRegistry();
    this.clock = b.clock;
    this.coalesceGapBytes = b.coalesceGapBytes;
    this.fetchRequestBytes = b.fetchRequestBytes;
    this.fetchRequestsInFlight = b.fetchRequestsInFlight;
    this.takeGapBytes = b.takeGapBytes;
    this.fetchAheadBytes = b.fetchAheadBytes;
    this.fetchPlans = b.fetchPlans;
  }

  /** Holder of the process-wide session used when none is given, created on first use. */
  private static final class SharedSession {
    static final Session INSTANCE = Session.withDefaults();
  }

  public static DatasetOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.allocator = allocator.orElse(null);
    b.storeOptions = storeOptions;
    b.session = session;
    b.rowsPerBatch = rowsPerBatch;
    b.maxRowsPerFragment = maxRowsPerFragment;
    b.commitOptions = commitOptions;
    b.commitStoreFactory = commitStoreFactory;
    b.registry = registry;
    b.clock = clock;
    b.coalesceGapBytes = coalesceGapBytes;
    b.fetchRequestBytes = fetchRequestBytes;
    b.fetchRequestsInFlight = fetchRequestsInFlight;
    b.takeGapBytes = takeGapBytes;
    b.fetchAheadBytes = fetchAheadBytes;
    b.fetchPlans = fetchPlans;
    return b;
  }

  /** The allocator scans and writes use; when absent the handle owns a private one. */
  public Optional<BufferAllocator> allocator() {
    return allocator;
  }

  public Map<String, String> storeOptions() {
    return storeOptions;
  }

  public Session session() {
    return session;
  }

  public int rowsPerBatch() {
    return rowsPerBatch;
  }

  public long maxRowsPerFragment() {
    return maxRowsPerFragment;
  }

  public CommitOptions commitOptions() {
    return commitOptions;
  }

  public Function<ObjectStore, CommitStore> commitStoreFactory() {
    return commitStoreFactory;
  }

  public ObjectStores registry() {
    return registry;
  }

  public Clock clock() {
    return clock;
  }

  /**
   * The size a scan aims at for one request, when set; empty: the store's ({@link FetchTuning#requestBytes()},
   * 8 MiB on every store Quiver ships).
   */
  public OptionalLong fetchRequestBytes() {
    return fetchRequestBytes == null ? OptionalLong.empty() : OptionalLong.of(fetchRequestBytes);
  }

  /**
   * Most fetch requests one fragment of a scan has in flight (0: fetched on the reading thread), when set;
   * empty: the store's ({@link FetchTuning#requestsInFlight()}: 8 on S3, GCS and Azure, 0 on local and
   * memory stores).
   */
  public OptionalInt fetchRequestsInFlight() {
    return fetchRequestsInFlight == null ? OptionalInt.empty() : OptionalInt.of(fetchRequestsInFlight);
  }

  /** Most bytes one fragment of a scan holds fetched (or being fetched) ahead of decoding. */
  public long fetchAheadBytes() {
    return fetchAheadBytes;
  }

  /**
   * Wanted byte ranges at most this far apart are fetched by one request, when set; empty: the store's
   * ({@link FetchTuning#coalesceGapBytes()}: 1 MiB on S3, GCS and Azure, 8 KiB on local and memory stores).
   */
  public OptionalInt coalesceGapBytes() {
    return coalesceGapBytes == null ? OptionalInt.empty() : OptionalInt.of(coalesceGapBytes);
  }

  /**
   * Wanted byte ranges of a {@code take} at most this far apart are fetched by one request, when set; empty:
   * the store's ({@link FetchTuning#takeGapBytes()}: 256 KiB on S3, GCS and Azure, 8 KiB on local and memory
   * stores).
   */
  public OptionalInt takeGapBytes() {
    return takeGapBytes == null ? OptionalInt.empty() : OptionalInt.of(takeGapBytes);
  }

  /** Whether scans plan their fetches across batches (false: each batch fetched on its own). */
  public boolean fetchPlans() {
    return fetchPlans;
  }

  /**
   * How data files are read from {@code store}: each fetch setting given to the builder, and the store's
   * {@link ObjectStore#fetchTuning() preference} for those left unset.
   */
  ReadOptions readOptions(ObjectStore store) {
    FetchTuning byStore = store.fetchTuning();
    return new ReadOptions(
        coalesceGapBytes != null ? coalesceGapBytes : byStore.coalesceGapBytes(),
        fetchRequestBytes != null ? fetchRequestBytes : byStore.requestBytes(),
        fetchRequestsInFlight != null ? fetchRequestsInFlight : byStore.requestsInFlight(),
        fetchAheadBytes, fetchPlans,
        takeGapBytes != null ? takeGapBytes : byStore.takeGapBytes());
  }

  /** The table's storage on {@code store} with these options (commit store, session, read tuning). */
  TableIo tableIo(ObjectStore store) {
    return new TableIo(store, commitStoreFactory.apply(store), session, readOptions(store));
  }

  /** Builder of {@link DatasetOptions}. */
  public static final class Builder {
    private BufferAllocator allocator;
    private Map<String, String> storeOptions = Map.of();
    private Session session;
    private int rowsPerBatch = 8192;
    private long maxRowsPerFragment = 1L << 20;
    private CommitOptions commitOptions = CommitOptions.defaults();
    private Function<ObjectStore, CommitStore> commitStoreFactory = CommitStore::of;
    private ObjectStores registry;
    private Clock clock = Clock.systemUTC();
    private Integer coalesceGapBytes; // null: by store (ObjectStore#fetchTuning), as the next two
    private Long fetchRequestBytes;
    private Integer fetchRequestsInFlight;
    private Integer takeGapBytes;
    private long fetchAheadBytes = ReadOptions.DEFAULT_PREFETCH_BYTES;
    private boolean fetchPlans = true;

    private Builder() {}

    /** Arrow allocator for scans and writes; the caller keeps ownership and closes it. */
    public Builder allocator(BufferAllocator value) {
      this.allocator = Objects.requireNonNull(value, "allocator");
      return this;
    }

    /** Adapter settings passed to the store provider (endpoint, credentials, ...). */
    public Builder storeOptions(Map<String, String> value) {
      this.storeOptions = Map.copyOf(value);
      return this;
    }

    /** Caches to share with other handles; defaults to one process-wide session. */
    public Builder session(Session value) {
      this.session = Objects.requireNonNull(value, "session");
      return this;
    }

    /** Rows per record batch inside written data files (default 8192). */
    public Builder rowsPerBatch(int value) {
      if (value < 1) {
        throw new InvalidArgumentException("rowsPerBatch must be >= 1, got " + value);
      }
      this.rowsPerBatch = value;
      return this;
    }

    /** Most rows one written fragment holds (default 1,048,576; at most 2^32). */
    public Builder maxRowsPerFragment(long value) {
      if (value < 1 || value > io.quiver.manifest.Fragment.MAX_ROWS) {
        throw new InvalidArgumentException("maxRowsPerFragment must be in [1, 2^32], got " + value);
      }
      this.maxRowsPerFragment = value;
      return this;
    }

    public Builder commitOptions(CommitOptions value) {
      this.commitOptions = Objects.requireNonNull(value, "commitOptions");
      return this;
    }

    /**
     * How versions are claimed; by default with {@code putIfAbsent} on the table's own store. Plug an
     * external commit service here for stores without conditional put.
     */
    public Builder commitStore(Function<ObjectStore, CommitStore> factory) {
      this.commitStoreFactory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /** Store registry used to open URIs; defaults to the adapters found by ServiceLoader. */
    public Builder registry(ObjectStores value) {
      this.registry = Objects.requireNonNull(value, "registry");
      return this;
    }

    /** Clock whose reading is recorded as commit time. */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Size a scan aims at for one store request (unset: the store's, 8 MiB on every store Quiver ships): the projected buffers of consecutive
     * batches of a data file are fetched together, one request per this many bytes, instead of one request
     * per buffer run per batch (docs/scan-planning.md, "Fetching").
     */
    public Builder fetchRequestBytes(long value) {
      if (value < 1) {
        throw new InvalidArgumentException("fetchRequestBytes must be >= 1, got " + value + "; the default is "
            + ReadOptions.DEFAULT_TARGET_REQUEST_BYTES + " (8 MiB)");
      }
      this.fetchRequestBytes = value;
      return this;
    }

    /**
     * Most store requests each fragment reader of a scan has in flight, run on fetch threads the scan starts
     * and stops (at most 64); 0 fetches on the reading thread when the decoder needs the bytes (still
     * coalesced, nothing read ahead, no thread started). Unset, it is chosen by the store ({@link
     * ObjectStore#fetchTuning()}): 8 where requests wait on a network (S3, GCS, Azure), 0 on local and
     * in-memory stores, where starting and feeding fetch threads costs more than the reads; 4 on a store
     * that does not say.
     */
    public Builder fetchRequestsInFlight(int value) {
      if (value < 0 || value > FetchTuning.MAX_REQUESTS_IN_FLIGHT) {
        throw new InvalidArgumentException("fetchRequestsInFlight must be in [0, "
            + FetchTuning.MAX_REQUESTS_IN_FLIGHT + "], got " + value);
      }
      this.fetchRequestsInFlight = value;
      return this;
    }

    /**
     * Most bytes each fragment reader of a scan holds fetched or being fetched ahead of decoding (default
     * 64 MiB); the request the decoder is waiting for is issued even when it alone is larger.
     */
    public Builder fetchAheadBytes(long value) {
      if (value < 0) {
        throw new InvalidArgumentException("fetchAheadBytes must be >= 0, got " + value + "; the default is "
            + ReadOptions.DEFAULT_PREFETCH_BYTES + " (64 MiB)");
      }
      this.fetchAheadBytes = value;
      return this;
    }

    /**
     * Wanted byte ranges at most this many bytes apart are fetched by one request (0 merges only touching
     * ranges). Unset, it is chosen by the store ({@link ObjectStore#fetchTuning()}): 1 MiB on S3, GCS and
     * Azure, where a request costs more than reading a megabyte of other columns' bytes, 8 KiB on local and
     * in-memory stores and on a store that does not say.
     */
    public Builder coalesceGapBytes(int value) {
      if (value < 0) {
        throw new InvalidArgumentException("coalesceGapBytes must be >= 0, got " + value);
      }
      this.coalesceGapBytes = value;
      return this;
    }

    /**
     * Wanted byte ranges of a {@link Dataset#take take} at most this many bytes apart are fetched by one
     * request (0 merges only touching ranges). Unset, it is chosen by the store ({@link
     * ObjectStore#fetchTuning()}): 256 KiB on S3, GCS and Azure, 8 KiB on local and in-memory stores and on
     * a store that does not say. Merged point ranges have no size bound, so each wanted row may add up to
     * this many bytes: keep it well below a scan's gap.
     */
    public Builder takeGapBytes(int value) {
      if (value < 0) {
        throw new InvalidArgumentException("takeGapBytes must be >= 0, got " + value);
      }
      this.takeGapBytes = value;
      return this;
    }

    /**
     * Whether scans plan their fetches across batches (default true). False fetches every batch with its own
     * requests when the decoder reaches it, as Quiver did before fetch plans: for comparisons.
     */
    public Builder fetchPlans(boolean value) {
      this.fetchPlans = value;
      return this;
    }

    public DatasetOptions build() {
      return new DatasetOptions(this);
    }
  }
}
