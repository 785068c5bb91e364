package io.quiver.store.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void ceilingDoublesUpToTheCapAndDelaysStayWithinHalfAndAll() {
    Backoff b = Backoff.of(Duration.ofMillis(40), Duration.ofSeconds(1));
    assertThat(b.ceiling(1)).isEqualTo(Duration.ofMillis(40));
    assertThat(b.ceiling(2)).isEqualTo(Duration.ofMillis(80));
    assertThat(b.ceiling(5)).isEqualTo(Duration.ofMillis(640));
    assertThat(b.ceiling(6)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
    for (int attempt = 1; attempt < 10; attempt++) {
      Duration d = b.delay(attempt);
      assertThat(d).isBetween(b.ceiling(attempt).dividedBy(2), b.ceiling(attempt));
    }
  }

  @Test
  void hugeBoundsSaturateAndZeroMeansNoWait() throws Exception {
    Backoff huge = Backoff.of(Duration.ofDays(365 * 1000), Duration.ofDays(365 * 2000));
    assertThat(huge.ceiling(30)).isPositive();
    assertThat(Backoff.NONE.delay(5)).isEqualTo(Duration.ZERO);
    Backoff.NONE.pause(5);
  }
}
