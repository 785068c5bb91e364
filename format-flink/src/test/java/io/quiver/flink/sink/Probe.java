package io.quiver.flink.sink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * A pass-through map that coordinates the tests with the job's checkpoints (the MiniCluster runs in the test
 * JVM, so statics are shared): it fails once, in the first record after checkpoint {@link #failAfter}
 * completed; runs {@link #hook} once when checkpoint {@link #hookAt} completed; and counts {@link #reached}
 * down when checkpoint {@link #latchAt} completed. No sleeps: everything follows checkpoint notifications.
 */
final class Probe<T> implements MapFunction<T, T>, CheckpointListener {
  static final AtomicLong COMPLETED = new AtomicLong();
  static final AtomicInteger FAILURES = new AtomicInteger();
  static final AtomicBoolean HOOK_RAN = new AtomicBoolean();
  static volatile long failAfter = Long.MAX_VALUE;
  static volatile long hookAt = Long.MAX_VALUE;
  static volatile Runnable hook = () -> {};
  static volatile long latchAt = Long.MAX_VALUE;
  static volatile CountDownLatch reached = new CountDownLatch(1);

  static void reset() {
    COMPLETED.set(0);
    FAILURES.set(0);
    HOOK_RAN.set(false);
    failAfter = Long.MAX_VALUE;
    hookAt = Long.MAX_VALUE;
    hook = () -> {};
    latchAt = Long.MAX_VALUE;
    reached = new CountDownLatch(1);
  }

  @Override
  public T map(T value) {
    if (COMPLETED.get() >= failAfter && FAILURES.get() == 0 && FAILURES.compareAndSet(0, 1)) {
      throw new IllegalStateException("injected failure after checkpoint " + COMPLETED.get() + " completed");
    }
    return value;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    long now = COMPLETED.accumulateAndGet(checkpointId, Math::max);
    if (now >= hookAt && HOOK_RAN.compareAndSet(false, true)) {
      hook.run();
    }
    if (now >= latchAt) {
      reached.countDown();
    }
  }
}
