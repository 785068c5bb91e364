package io.quiver.store;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link ObjectStore} that forwards every call, default methods included, to another: the base of
 * decorators (metering, fault injection, test doubles), which override only what they change. Forwarding
 * the defaults matters: a decorator that let {@code readRangeInto} or {@code deleteAll} fall back to the
 * interface's generic bodies would silently lose the delegate's zero-copy reads or batch deletes. A
 * decorator that wants a default to go through its own overrides instead (a fault injector whose {@code
 * list} faults must apply to {@code listAll}) says so with {@link #listAllByPages} and {@link
 * #deleteEachByKey}. {@code ForwardingObjectStoreTest} checks that every method of the port is forwarded.
 */
public abstract class ForwardingObjectStore implements ObjectStore {
  private final ObjectStore delegate;

  protected ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store calls are forwarded to. */
  protected ObjectStore delegate() {
    return delegate;
  }

  /** {@link ObjectStore#listAll}'s generic body, paging through this store's own {@link #list}. */
  protected final List<ObjectInfo> listAllByPages(String prefix) {
    return PortDefaults.listAll(this, prefix);
  }

  /** {@link ObjectStore#deleteAll}'s generic body, one call of this store's own {@link #delete} per key. */
  protected final List<String> deleteEachByKey(Collection<String> keys) {
    return PortDefaults.deleteEach(this, keys);
  }

  @Override
  public FetchTuning fetchTuning() {
    return delegate.fetchTuning();
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
    return delegate.read(key);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    return delegate.readRange(key, offset, length);
  }

  @Override
  public int readRangeInto(String key, long offset, ByteBuffer target) {
    return delegate.readRangeInto(key, offset, target);
  }

  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    return delegate.readRanges(key, ranges);
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
  public PutResult putIfAbsent(String key, byte[] data) {
    return delegate.putIfAbsent(key, data);
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    return delegate.list(prefix, startAfter, maxKeys);
  }

  @Override
  public List<ObjectInfo> listAll(String prefix) {
    return delegate.listAll(prefix);
  }

  @Override
  public void delete(String key) {
    delegate.delete(key);
  }

  @Override
  public List<String> deleteAll(Collection<String> keys) {
    return delegate.deleteAll(keys);
  }

  @Override
  public List<ObjectInfo> abandonedTemporaries(Instant olderThan) {
    return delegate.abandonedTemporaries(olderThan);
  }

  @Override
  public List<ObjectInfo> deleteAbandonedTemporaries(Instant olderThan) {
    return delegate.deleteAbandonedTemporaries(olderThan);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + delegate + "]";
  }
}
