package io.quiver.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void ceilingDoublesUpToTheCapAndDelaysStayWithinHalfAndAll() {
    Backoff b = Backoff.of(Duration.ofMillis(40), Duration.ofSeconds(1));
    assertEquals(Duration.ofMillis(40), b.ceiling(1));
    assertEquals(Duration.ofMillis(80), b.ceiling(2));
    assertEquals(Duration.ofMillis(640), b.ceiling(5));
    assertEquals(Duration.ofSeconds(1), b.ceiling(6));
    assertEquals(Duration.ofSeconds(1), b.ceiling(Integer.MAX_VALUE));
    for (int attempt = 1; attempt < 10; attempt++) {
      Duration d = b.delay(attempt);
      assertThat(d).isBetween(b.ceiling(attempt).dividedBy(2), b.ceiling(attempt));
    }
  }

  @Test
  void hugeBoundsSaturateAndZeroMeansNoWait() throws InterruptedException {
    Backoff huge = Backoff.of(Duration.ofDays(365 * 1000), Duration.ofDays(365 * 2000));
    assertThat(huge.ceiling(30)).isPositive();
    assertEquals(Duration.ZERO, Backoff.NONE.delay(5));
    Backoff.NONE.pause(5);
  }
}
