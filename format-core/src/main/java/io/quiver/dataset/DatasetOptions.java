package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.CommitStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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

    public DatasetOptions build() {
      return new DatasetOptions(this);
    }
  }
}
