package io.quiver.store.support;

import io.quiver.exceptions.StoreException;
import io.quiver.store.ByteRange;
import io.quiver.store.ObjectStore;
import io.quiver.store.StoreArgs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/**
 * {@link ObjectStore#readRanges} for stores whose ranged reads are independent requests (the clouds):
 * every range is one {@code readRange} on a bounded pool of the store's, so at most the pool's size are in
 * flight at once for all callers together; results keep the caller's order. A single range runs on the
 * caller's thread. The first failure (in range order) is rethrown as the store threw it, typed, and the
 * ranges not yet started are cancelled. Each store makes its pool with {@link StoreThreads#bounded} and
 * sizes it from its own {@code *.read.parallelism} option.
 */
public final class ParallelRanges {
  private ParallelRanges() {}

  /**
   * Reads every range with {@code store.readRange}, on {@code pool}.
   *
   * @param store the store whose {@code readRange} does each read (and whose location names errors)
   */
  public static List<byte[]> read(ObjectStore store, ExecutorService pool, String key, List<ByteRange> ranges) {
    StoreArgs.key(key);
    List<ByteRange> checked = StoreArgs.ranges(ranges);
    if (checked.size() <= 1) {
      return checked.isEmpty()
          ? List.of()
          : List.of(store.readRange(key, checked.get(0).offset(), checked.get(0).length()));
    }
    List<Future<byte[]>> pending = new ArrayList<>(checked.size());
    try {
      for (ByteRange r : checked) {
        pending.add(pool.submit(() -> store.readRange(key, r.offset(), r.length())));
      }
      List<byte[]> out = new ArrayList<>(checked.size());
      for (Future<byte[]> f : pending) {
        out.add(f.get());
      }
      return out;
    } catch (RejectedExecutionException e) {
      throw new StoreException(
          "cannot read ranges of " + store.locationOf(key) + ": the store is closed; open it again", e, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while reading ranges of " + store.locationOf(key), e, true);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new StoreException("reading a range of " + store.locationOf(key) + " failed: " + cause, cause, false);
    } finally {
      for (Future<byte[]> f : pending) {
        f.cancel(true);
      }
    }
  }
}
