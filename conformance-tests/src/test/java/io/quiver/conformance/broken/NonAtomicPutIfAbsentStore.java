package io.quiver.conformance.broken;

import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.util.Map;
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
final class NonAtomicPutIfAbsentStore extends ForwardingObjectStore {
  static final long WINDOW_MILLIS = 200;

  private final Map<String, CountDownLatch> checked = new ConcurrentHashMap<>();

  NonAtomicPutIfAbsentStore(String location) {
    super(new MemoryObjectStore(location));
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    if (delegate().head(key).isPresent()) { // check ...
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
    delegate().write(key, data); // ... then write, whoever else wrote meanwhile
    return PutResult.CREATED;
  }
}
