package io.quiver.store.support;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads of a store: daemon threads (an unclosed store never keeps a JVM alive) with names that say
 * whose they are, and pools whose idle threads go away.
 */
public final class StoreThreads {
  private static final long IDLE_SECONDS = 30;

  private StoreThreads() {}

  /** Daemon threads named {@code name-1}, {@code name-2}, … */
  public static ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * A pool of at most {@code threads} daemon threads with an unbounded queue; threads idle for 30 s end.
   * For uploads whose callers bound what they have in flight themselves (a semaphore per writer).
   */
  public static ExecutorService bounded(String name, int threads) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, IDLE_SECONDS, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), daemon(name));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * A pool that grows with demand (threads idle for 30 s end): for tasks that must not queue behind other
   * uploads of the same store, when every caller bounds its own tasks.
   */
  public static ExecutorService elastic(String name) {
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS,
        new java.util.concurrent.SynchronousQueue<>(), daemon(name));
  }
}
