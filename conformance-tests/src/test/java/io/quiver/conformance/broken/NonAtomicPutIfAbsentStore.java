package io.quiver.conformance.broken;

import io.quiver.store.ListPage;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A deliberately broken store: a memory store whose {@code putIfAbsent} is check-then-write, the classic
 * non-atomic "conditional" put. Between the check and the write, the first caller that found a key absent
 * waits (bounded) until a second caller has also found it absent, so whenever two callers race for one key
 * the race is lost for real: both are told {@code CREATED}, the later write silently replaces the earlier.
 * A lone caller waits {@link #WINDOW_MILLIS} and then proceeds, so single-threaded use still looks right.
 */
final class NonAtomicPutIfAbsentStore implements ObjectStore {
  static final long WINDOW_MILLIS = 200;

  private final MemoryObjectStore delegate;
  private final Map<String, CountDownLatch> checked = new ConcurrentHashMap<>();

  NonAtomicPutIfAbsentStore(String location) {
    this.delegate = new MemoryObjectStore(location);
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    if (delegate.head(key).isPresent()) { // check ...
      return PutResult.ALREADY_EXISTS;
    }
    CountDownLatch bothChecked = checked.computeIfAbsent(key, k -> new CountDownLatch(2));
    bothChecked.countDown();
    try {
      bothChecked.await(WINDOW_MILLIS, TimeUnit.MILLISECONDS); // ... the window a real race hits ...
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    checked.remove(key, bothChecked);
    delegate.write(key, data); // ... then write, whoever else wrote meanwhile
    return PutResult.CREATED;
  }

  @Override
  public String location() {
    return delegate.location();
  }

  @Override
  public byte[] read(String key) {
    return delegate.read(key);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    return delegate.readRange(key, offset, length);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return delegate.head(key);
  }

  @Override
  public void write(String key, byte[] data) {
    delegate.write(key, data);
  }

  @Override
  public ObjectWriter openWriter(String key) {
    return delegate.openWriter(key);
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    return delegate.list(prefix, startAfter, maxKeys);
  }

  @Override
  public void delete(String key) {
    delegate.delete(key);
  }
}
