package io.quiver.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
    assertEquals(ConformanceDepth.Depth.CI, ConformanceDepth.depth());
    System.setProperty(ConformanceDepth.PROPERTY, " ");
    assertEquals(ConformanceDepth.Depth.CI, ConformanceDepth.depth());
  }

  @Test
  void eachDepthPicksItsTriesAndLengths() {
    System.setProperty(ConformanceDepth.PROPERTY, "quick");
    assertEquals(100, ConformanceDepth.tries(tries(100, -1, 1000)));
    assertEquals(30, ConformanceDepth.pick(30, 45));
    System.setProperty(ConformanceDepth.PROPERTY, "ci");
    assertEquals(300, ConformanceDepth.tries(tries(100, -1, 1000)), "three times quick by default");
    assertEquals(20, ConformanceDepth.tries(tries(10, -1, 20)), "never beyond deep");
    assertEquals(120, ConformanceDepth.tries(tries(100, 120, 1000)), "an explicit ci count wins");
    assertEquals(37, ConformanceDepth.pick(30, 45), "lengths halfway");
    System.setProperty(ConformanceDepth.PROPERTY, "LONG");
    assertEquals(1000, ConformanceDepth.tries(tries(100, 120, 1000)));
    assertEquals(45, ConformanceDepth.pick(30, 45));
  }

  @Test
  void quickAndCiRunsHaveFixedSeeds() {
    for (String d : new String[] {"quick", "ci"}) {
      System.setProperty(ConformanceDepth.PROPERTY, d);
      assertEquals("42", ConformanceDepth.seed(Optional.of("42")), d + ": the property's own seed");
      assertEquals(ConformanceDepth.QUICK_SEED, ConformanceDepth.seed(Optional.empty()), d);
    }
  }

  @Test
  void longRunsRotateTheSeedOncePerRun() {
    System.setProperty(ConformanceDepth.PROPERTY, "long");
    String run = ConformanceDepth.seed(Optional.of("42"));
    assertNotEquals("42", run, "a property's fixed seed does not pin a long run");
    assertEquals(run, ConformanceDepth.seed(Optional.empty()), "one seed for the whole run");
    Long.parseLong(run);
  }

  @Test
  void anExplicitSeedPinsEveryDepth() {
    System.setProperty(ConformanceDepth.SEED_PROPERTY, "-7");
    for (String d : new String[] {"quick", "ci", "long"}) {
      System.setProperty(ConformanceDepth.PROPERTY, d);
      assertEquals("-7", ConformanceDepth.seed(Optional.of("42")), d);
    }
    assertEquals("-Dquiver.conformance.depth=long -Dquiver.conformance.seed=-7", ConformanceDepth.reproduction("-7"));
  }

  @Test
  void badValuesAreClearErrors() {
    System.setProperty(ConformanceDepth.PROPERTY, "medium");
    assertThrows(IllegalArgumentException.class, ConformanceDepth::depth);
    System.setProperty(ConformanceDepth.PROPERTY, "ci");
    System.setProperty(ConformanceDepth.SEED_PROPERTY, "abc");
    assertThrows(IllegalArgumentException.class, () -> ConformanceDepth.seed(Optional.empty()));
  }
}
