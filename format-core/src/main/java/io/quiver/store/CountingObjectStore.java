package io.quiver.store;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decorator that delegates everything and counts the bytes returned by {@link #read} and {@link
 * #readRange} and the number of those calls, to meter how much a reader fetched (tests prove projected
 * reads with it; the benchmarks report bytes read per projected byte). Thread-safe.
 */
public final class CountingObjectStore implements ObjectStore {
  private final ObjectStore delegate;
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong readCalls = new AtomicLong();
  private final AtomicLong headCalls = new AtomicLong();

  public CountingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** Bytes returned by read and readRange since construction or the last {@link #reset()}. */
  public long bytesRead() {
    return bytesRead.get();
  }

  /** Calls to read and readRange since construction or the last {@link #reset()}. */
  public long readCalls() {
    return readCalls.get();
  }

  /** Calls to head since construction or the last {@link #reset()}. */
  public long headCalls() {
    return headCalls.get();
  }

  public void reset() {
    bytesRead.set(0);
    readCalls.set(0);
    headCalls.set(0);
  }

  @Override
  public String location() {
    return delegate.location();
  }

  @Override
  public String locationOf(String key) {
    return delegate.locationOf(key);
  }

  @Override
  public byte[] read(String key) {
    byte[] data = delegate.read(key);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    byte[] data = delegate.readRange(key, offset, length);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public int readRangeInto(String key, long offset, java.nio.ByteBuffer target) {
    int n = delegate.readRangeInto(key, offset, target);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(n);
    return n;
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    headCalls.incrementAndGet();
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
  public PutResult putIfAbsent(String key, byte[] data) {
    return delegate.putIfAbsent(key, data);
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    return delegate.list(prefix, startAfter, maxKeys);
  }

  @Override
  public void delete(String key) {
    delegate.delete(key);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
