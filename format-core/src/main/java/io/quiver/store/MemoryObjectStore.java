package io.quiver.store;

import io.quiver.exceptions.ObjectNotFoundException;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An {@link ObjectStore} held in memory, for tests and ephemeral tables. Thread-safe; {@link
 * #putIfAbsent} is atomic. Keys sort in {@link Keys#ORDER} (UTF-8 byte order), like the cloud stores.
 */
public final class MemoryObjectStore implements ObjectStore {
  private final String location;
  private final NavigableMap<String, Blob> objects = new ConcurrentSkipListMap<>(Keys.ORDER);
  private final Clock clock;

  public MemoryObjectStore(String location) {
    this(location, Clock.systemUTC());
  }

  public MemoryObjectStore(String location, Clock clock) {
    this.location = location;
    this.clock = clock;
  }

  private record Blob(byte[] data, Instant lastModified) {}

  @Override
  public FetchTuning fetchTuning() {
    return FetchTuning.LOCAL; // a read costs less than a hand-over to a fetch thread
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public byte[] read(String key) {
    StoreArgs.key(key);
    return blob(key).data().clone();
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    StoreArgs.key(key);
    StoreArgs.range(offset, length);
    byte[] data = blob(key).data();
    if (offset >= data.length) {
      return new byte[0];
    }
    int end = (int) Math.min(data.length, offset + (long) length);
    return Arrays.copyOfRange(data, (int) offset, end);
  }

  /** All ranges from one snapshot of the object: a concurrent {@link #write} never mixes two versions. */
  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    StoreArgs.key(key);
    List<ByteRange> checked = StoreArgs.ranges(ranges);
    if (checked.isEmpty()) {
      return List.of();
    }
    byte[] data = blob(key).data();
    List<byte[]> out = new ArrayList<>(checked.size());
    for (ByteRange r : checked) {
      out.add(r.offset() >= data.length
          ? new byte[0]
          : Arrays.copyOfRange(data, (int) r.offset(), (int) Math.min(data.length, r.end())));
    }
    return out;
  }

  private Blob blob(String key) {
    Blob blob = objects.get(key);
    if (blob == null) {
      throw new ObjectNotFoundException(locationOf(key));
    }
    return blob;
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    StoreArgs.key(key);
    Blob blob = objects.get(key);
    return blob == null
        ? Optional.empty()
        : Optional.of(new ObjectInfo(key, blob.data().length, blob.lastModified()));
  }

  @Override
  public void write(String key, byte[] data) {
    StoreArgs.key(key);
    StoreArgs.data(key, data);
    objects.put(key, new Blob(data.clone(), clock.instant()));
  }

  @Override
  public ObjectWriter openWriter(String key) {
    StoreArgs.key(key);
    return new ObjectWriter() {
      private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      private boolean done;

      @Override
      public void write(int b) {
        ensureOpen();
        buffer.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        ensureOpen();
        buffer.write(b, off, len);
      }

      private void ensureOpen() {
        if (done) {
          throw new IllegalStateException("writer for " + locationOf(key) + " is closed");
        }
      }

      @Override
      public long position() {
        return buffer.size();
      }

      @Override
      public void abort() {
        done = true;
      }

      @Override
      public void close() {
        if (!done) {
          done = true;
          objects.put(key, new Blob(buffer.toByteArray(), clock.instant()));
        }
      }
    };
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    StoreArgs.key(key);
    StoreArgs.data(key, data);
    Blob previous = objects.putIfAbsent(key, new Blob(data.clone(), clock.instant()));
    return previous == null ? PutResult.CREATED : PutResult.ALREADY_EXISTS;
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    StoreArgs.list(prefix, startAfter, maxKeys);
    NavigableMap<String, Blob> tail =
        startAfter.isPresent() && Keys.compare(startAfter.get(), prefix) >= 0
            ? objects.tailMap(startAfter.get(), false)
            : objects.tailMap(prefix, true);
    List<ObjectInfo> page = new ArrayList<>();
    for (Map.Entry<String, Blob> e : tail.entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (page.size() == maxKeys) {
        return new ListPage(page, true);
      }
      page.add(new ObjectInfo(e.getKey(), e.getValue().data().length, e.getValue().lastModified()));
    }
    return new ListPage(page, false);
  }

  @Override
  public void delete(String key) {
    StoreArgs.key(key);
    objects.remove(key);
  }
}
