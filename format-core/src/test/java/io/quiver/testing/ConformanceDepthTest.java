package io.quiver.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.lang.annotation.Annotation;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The depths' tries, lengths and seeds, as README's test section describes them. */
class ConformanceDepthTest {
  private String depth;
  private String seed;

  @BeforeEach
  void save() {
    depth = System.getProperty(ConformanceDepth.PROPERTY);
    seed = System.getProperty(ConformanceDepth.SEED_PROPERTY);
    System.clearProperty(ConformanceDepth.SEED_PROPERTY);
  }

  @AfterEach
  void restore() {
    set(ConformanceDepth.PROPERTY, depth);
    set(ConformanceDepth.SEED_PROPERTY, seed);
  }

  private static void set(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  private static DepthTries tries(int quick, int ci, int deep) {
    return new DepthTries() {
      @Override
      public int quick() {
        return quick;
      }

      @Override
      public int ci() {
        return ci;
      }

      @Override
      public int deep() {
        return deep;
      }

      @Override
      public Class<? extends Annotation> annotationType() {
        return DepthTries.class;
      }
    };
  }

  @Test
  void ciIsTheDefaultDepth() {
    System.clearProperty(ConformanceDepth.PROPERTY);
    assertThat(ConformanceDepth.depth()).isEqualTo(ConformanceDepth.Depth.CI);
    System.setProperty(ConformanceDepth.PROPERTY, " ");
    assertThat(ConformanceDepth.depth()).isEqualTo(ConformanceDepth.Depth.CI);
  }

  @Test
  void eachDepthPicksItsTriesAndLengths() {
    System.setProperty(ConformanceDepth.PROPERTY, "quick");
    assertThat(ConformanceDepth.tries(tries(100, -1, 1000))).isEqualTo(100);
    assertThat(ConformanceDepth.pick(30, 45)).isEqualTo(30);
    System.setProperty(ConformanceDepth.PROPERTY, "ci");
    assertThat(ConformanceDepth.tries(tries(100, -1, 1000))).as("three times quick by default").isEqualTo(300);
    assertThat(ConformanceDepth.tries(tries(10, -1, 20))).as("never beyond deep").isEqualTo(20);
    assertThat(ConformanceDepth.tries(tries(100, 120, 1000))).as("an explicit ci count wins").isEqualTo(120);
    assertThat(ConformanceDepth.pick(30, 45)).as("lengths halfway").isEqualTo(37);
    System.setProperty(ConformanceDepth.PROPERTY, "LONG");
    assertThat(ConformanceDepth.tries(tries(100, 120, 1000))).isEqualTo(1000);
    assertThat(ConformanceDepth.pick(30, 45)).isEqualTo(45);
  }

  @Test
  void quickAndCiRunsHaveFixedSeeds() {
    for (String d : new String[] {"quick", "ci"}) {
      System.setProperty(ConformanceDepth.PROPERTY, d);
      assertThat(ConformanceDepth.seed(Optional.of("42"))).as(d + ": the property's own seed").isEqualTo("42");
      assertThat(ConformanceDepth.seed(Optional.empty())).as(d).isEqualTo(ConformanceDepth.QUICK_SEED);
    }
  }

  @Test
  void longRunsRotateTheSeedOncePerRun() {
    System.setProperty(ConformanceDepth.PROPERTY, "long");
    String run = ConformanceDepth.seed(Optional.of("42"));
    assertThat(run).as("a property's fixed seed does not pin a long run").isNotEqualTo("42");
    assertThat(ConformanceDepth.seed(Optional.empty())).as("one seed for the whole run").isEqualTo(run);
    Long.parseLong(run);
  }

  @Test
  void anExplicitSeedPinsEveryDepth() {
    System.setProperty(ConformanceDepth.SEED_PROPERTY, "-7");
    for (String d : new String[] {"quick", "ci", "long"}) {
      System.setProperty(ConformanceDepth.PROPERTY, d);
      assertThat(ConformanceDepth.seed(Optional.of("42"))).as(d).isEqualTo("-7");
    }
    assertThat(ConformanceDepth.reproduction("-7")).isEqualTo("-Dquiver.conformance.depth=long -Dquiver.conformance.seed=-7");
  }

  @Test
  void badValuesAreClearErrors() {
    System.setProperty(ConformanceDepth.PROPERTY, "medium");
    assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(ConformanceDepth::depth);
    System.setProperty(ConformanceDepth.PROPERTY, "ci");
    System.setProperty(ConformanceDepth.SEED_PROPERTY, "abc");
    assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> ConformanceDepth.seed(Optional.empty()));
  }
}
