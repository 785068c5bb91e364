package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How hard a commit tries to win the race for the next version, and what it records.
 *
 * @param maxAttempts attempts to claim a version before giving up with {@link
 *     io.quiver.exceptions.CommitRetriesExhaustedException}
 * @param timeout total time allowed for one commit, retries included
 * @param initialBackoff first wait after losing a race; doubles per lost attempt, with jitter
 * @param maxBackoff cap of one wait
 * @param properties transaction properties to record (keys starting with {@code quiver.} are
 *     reserved)
 */
public record CommitOptions(
    int maxAttempts, Duration timeout, Duration initialBackoff, Duration maxBackoff, Map<String, String> properties) {

  public CommitOptions {
    if (maxAttempts < 1) {
      throw new InvalidArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (timeout.isNegative() || initialBackoff.isNegative() || maxBackoff.isNegative()) {
      throw new InvalidArgumentException("commit durations must not be negative");
    }
    properties = Map.copyOf(properties);
    for (String key : properties.keySet()) {
      if (key.startsWith(io.quiver.txn.Transaction.RESERVED_PROPERTY_PREFIX)) {
        throw new InvalidArgumentException(
            "transaction property '" + key + "' uses the reserved prefix 'quiver.'; choose another key");
      }
    }
  }

  /** 20 attempts within 60 s, backing off from 10 ms up to 1 s. */
  public static CommitOptions defaults() {
    return new CommitOptions(20, Duration.ofSeconds(60), Duration.ofMillis(10), Duration.ofSeconds(1), Map.of());
  }

  public CommitOptions withMaxAttempts(int attempts) {
    return new CommitOptions(attempts, timeout, initialBackoff, maxBackoff, properties);
  }

  public CommitOptions withTimeout(Duration newTimeout) {
    return new CommitOptions(maxAttempts, newTimeout, initialBackoff, maxBackoff, properties);
  }

  public CommitOptions withBackoff(Duration initial, Duration max) {
    return new CommitOptions(maxAttempts, timeout, initial, max, properties);
  }

  public CommitOptions withProperties(Map<String, String> newProperties) {
    return new CommitOptions(maxAttempts, timeout, initialBackoff, maxBackoff, newProperties);
  }
}
