package io.quiver.dataset;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand, shared by a memory store (file times) and the dataset (commit times). */
final class CleanupTestClock extends Clock {
  private volatile Instant now;

  CleanupTestClock(Instant start) {
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
