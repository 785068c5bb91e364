package io.quiver.store.support;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Exponential backoff with jitter: before retry {@code n} (1 for the first retry) wait a random time
 * between half and all of {@code min(max, initial × 2^(n-1))}, so that contenders spread out instead of
 * colliding again in lockstep. The commit loop and the adapters' conditional puts use the same policy;
 * only their bounds differ. Immutable and thread-safe.
 */
public final class Backoff {
  /** No waiting at all. */
  public static final Backoff NONE = new Backoff(Duration.ZERO, Duration.ZERO);

  private final Duration initial;
  private final Duration max;

  private Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
  }

  /**
   * @param initial the ceiling of the first wait, at least 0
   * @param max the largest ceiling, at least 0
   */
  public static Backoff of(Duration initial, Duration max) {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || max.isNegative()) {
      throw new IllegalArgumentException("backoff bounds must be >= 0, got " + initial + " and " + max);
    }
    return new Backoff(initial, max);
  }

  public Duration initial() {
    return initial;
  }

  public Duration max() {
    return max;
  }

  /** The longest wait before retry {@code attempt} (1-based). */
  public Duration ceiling(int attempt) {
    int shift = Math.min(Math.max(attempt, 1) - 1, 20);
    long cap = nanos(max);
    long first = nanos(initial);
    return Duration.ofNanos(first > (Long.MAX_VALUE >> shift) ? cap : Math.min(cap, first << shift));
  }

  private static long nanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /** A random wait before retry {@code attempt}: between half of {@link #ceiling} and all of it. */
  public Duration delay(int attempt) {
    long ceiling = ceiling(attempt).toNanos();
    return ceiling == 0 ? Duration.ZERO : Duration.ofNanos(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
  }

  /**
   * Sleeps {@link #delay} before retry {@code attempt}.
   *
   * @throws InterruptedException if interrupted while waiting (the caller maps it, usually saying that
   *     nothing more was attempted)
   */
  public void pause(int attempt) throws InterruptedException {
    long nanos = delay(attempt).toNanos();
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }

  @Override
  public String toString() {
    return "Backoff[" + initial + " doubling to " + max + ", jittered]";
  }
}
