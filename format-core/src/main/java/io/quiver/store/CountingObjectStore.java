package io.quiver.store;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decorator that forwards everything and counts the bytes returned by {@link #read} and {@link
 * #readRange} and the number of those calls, to meter how much a reader fetched (tests prove projected
 * reads with it; the benchmarks report bytes read per projected byte). Thread-safe.
 */
public final class CountingObjectStore extends ForwardingObjectStore {
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong readCalls = new AtomicLong();
  private final AtomicLong headCalls = new AtomicLong();

  public CountingObjectStore(ObjectStore delegate) {
    super(delegate);
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
  public byte[] read(String key) {
    byte[] data = super.read(key);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    byte[] data = super.readRange(key, offset, length);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public int readRangeInto(String key, long offset, ByteBuffer target) {
    int n = super.readRangeInto(key, offset, target);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(n);
    return n;
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    headCalls.incrementAndGet();
    return super.head(key);
  }
}
