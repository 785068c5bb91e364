package io.quiver.internal.file;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a scan fetches on ({@link Prefetch}): at most {@code threads} daemon threads named {@code
 * quiver-fetch-<pool>-<i>}, started only when a request is submitted, that do nothing but store reads (no
 * decoding). {@link #close()} lets the requests submitted finish and waits for the threads to end.
 */
public final class FetchPool implements Executor, AutoCloseable {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final int threads;
  private ThreadPoolExecutor pool;
  private boolean closed;

  public FetchPool(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("a fetch pool needs at least 1 thread, got " + threads);
    }
    this.threads = threads;
  }

  @Override
  public void execute(Runnable request) {
    ThreadPoolExecutor p;
    synchronized (this) {
      if (closed) {
        throw new java.util.concurrent.RejectedExecutionException("the fetch pool is closed");
      }
      if (pool == null) {
        int id = POOLS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "quiver-fetch-" + id + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
        pool.allowCoreThreadTimeOut(true);
      }
      p = pool;
    }
    p.execute(request);
  }

  @Override
  public void close() {
    ThreadPoolExecutor p;
    synchronized (this) {
      closed = true;
      p = pool;
    }
    if (p == null) {
      return;
    }
    p.shutdown();
    try {
      while (!p.awaitTermination(1, TimeUnit.SECONDS)) {
        // requests complete on their own: a store call is never interrupted
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
