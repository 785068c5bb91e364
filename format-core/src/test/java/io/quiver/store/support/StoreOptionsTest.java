package io.quiver.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoreOptionsTest {
  private static StoreOptions of(String key, String value) {
    return StoreOptions.of(Map.of(key, value));
  }

  @Test
  void blankIsAbsentAndValuesAreTrimmed() {
    StoreOptions o = StoreOptions.of(Map.of("x.a", "  ", "x.b", " v "));
    assertThat(o.string("x.a")).isEqualTo(Optional.empty());
    assertThat(o.string("x.b")).isEqualTo(Optional.of("v"));
    assertThat(o.firstOf("x.a", "x.b")).isEqualTo(Optional.of("v"));
    assertThat(StoreOptions.of(null).number("x.n", 7, 0, 10)).isEqualTo(7);
  }

  @Test
  void typedValuesParse() {
    assertThat(of("x.f", "TRUE").bool("x.f", false)).isTrue();
    assertThat(of("x.n", "12").integer("x.n", 1, 0, 100)).isEqualTo(12);
    assertThat(of("x.t", "250").millis("x.t", 1, 1, 1000)).isEqualTo(Duration.ofMillis(250));
    assertThat(of("x.c", "B-SIDE").choice("x.c", "a", Map.of("b-side", "b"), List.of("b-side"))).isEqualTo("b");
  }

  @Test
  void everyRefusalHasOneStyle() {
    assertThatThrownBy(() -> of("x.f", "yes").bool("x.f", false)).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("option 'x.f' must be true or false, found 'yes'");
    assertThatThrownBy(() -> of("x.n", "-1").number("x.n", 0, 0, 100))
        .hasMessage("option 'x.n' must be a whole number from 0 to 100, found '-1'");
    assertThatThrownBy(() -> of("x.n", "lots").number("x.n", 0, 0, 100))
        .hasMessage("option 'x.n' must be a whole number from 0 to 100, found 'lots'");
    assertThatThrownBy(() -> of("x.c", "z").choice("x.c", "a", Map.of("a", "a"), List.of("a", "b")))
        .hasMessage("option 'x.c' must be one of a, b, found 'z'");
    assertThat(StoreOptions.invalid("x.secret", "an http URL").getMessage())
        .isEqualTo("option 'x.secret' must be an http URL (the value is not shown)");
  }
}
