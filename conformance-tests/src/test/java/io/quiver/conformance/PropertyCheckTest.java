package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * {@link PropertyCheck} runs a jqwik property on the store it is given, and a failing property fails the
 * calling test with jqwik's own message (the shrunk sample), naming the store.
 */
class PropertyCheckTest {
  /** jqwik's report entries (statistics) are forwarded to it; these checks do not look at them. */
  private final TestReporter reporter = entry -> { };

  /** Fails for every value above 10 on the store named {@code failing}; passes elsewhere. */
  public static class Sample {
    static final List<String> SEEN = new ArrayList<>();

    @Property(tries = 50, seed = "42")
    void valuesAreSmallOnTheFailingStore(@ForAll @IntRange(min = 0, max = 1000) int value) {
      StoreFixture fixture = PropertyCheck.fixture();
      SEEN.add(fixture.name());
      if (fixture.name().equals("failing") && value > 10) {
        throw new AssertionError("value " + value + " on " + fixture.name());
      }
    }
  }

  private static StoreFixture named(String name) {
    return new StoreFixture() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String newTableUri() {
        throw new UnsupportedOperationException();
      }
    };
  }

  @Test
  void aPassingPropertyRunsOnTheGivenStoreWithJqwiksTries() {
    Sample.SEEN.clear();
    PropertyCheck.run(Sample.class, "valuesAreSmallOnTheFailingStore", named("fine"), reporter);
    assertThat(Sample.SEEN).hasSize(50).containsOnly("fine");
  }

  @Test
  void aFailingPropertyFailsTheCallerWithTheShrunkSampleAndTheStore() {
    assertThatThrownBy(() -> PropertyCheck.run(Sample.class, "valuesAreSmallOnTheFailingStore", named("failing"), reporter))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("value 11 on failing")
        .hasMessageContaining("-Dquiver.conformance.stores=failing");
    assertThatThrownBy(PropertyCheck::fixture).as("the handover ends with the check").isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anUnknownPropertyIsAnError() {
    assertThatThrownBy(() -> PropertyCheck.run(Sample.class, "noSuchProperty", named("fine"), reporter))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
