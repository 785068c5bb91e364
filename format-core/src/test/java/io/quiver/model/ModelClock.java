package io.quiver.model;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The model world's clock: commit times, cleanup cutoffs and ledger expiry are read from it, and only the
 * world moves it (a second per step, hours for a cleanup, past the idempotence retention for an expiry).
 */
final class ModelClock extends Clock {
  private volatile Instant now;

  ModelClock(Instant start) {
    this.now = start;
  }

  void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
