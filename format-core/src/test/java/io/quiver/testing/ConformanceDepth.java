package io.quiver.testing;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How deep the conformance properties search (model-based histories, fault schedules, serial equivalence,
 * interleavings), and with which seed. The system property {@value #PROPERTY} (set by the parent pom for
 * surefire and failsafe) names one of three depths:
 *
 * <ul>
 *   <li>{@code quick} ({@code -Dquiver.conformance.depth=quick}): the inner loop. {@link DepthTries#quick}
 *       tries with a <em>fixed</em> seed (the property's own {@code @Property(seed)}, else {@value
 *       #QUICK_SEED}), so the same code always runs the same cases.
 *   <li>{@code ci}, the default of {@code mvn -B verify} and so of CI: {@link DepthTries#ci} tries (about
 *       three times quick) and histories halfway to long, with the same fixed seeds as quick, so that CI's
 *       verdict on a commit is the one a clean-clone run gives before it lands.
 *   <li>{@code long} ({@code -Pconformance-long}): {@link DepthTries#deep} tries and longer histories with
 *       a <em>rotating</em> seed, a new one per test JVM unless {@value #SEED_PROPERTY} gives it, so every
 *       long run explores cases no run explored before. Run it before resolving anything that touches
 *       commits.
 * </ul>
 *
 * <p>The seed is printed for every property, and a failure names it with the command line that
 * reproduces it.
 *
 * <p>A property gives its sizes with {@link DepthTries} (its tries) and {@link #pick} (chain lengths and
 * the like).
 */
public final class ConformanceDepth {
  /** The system property naming the depth: {@code quick}, {@code ci} (the default) or {@code long}. */
  public static final String PROPERTY = "quiver.conformance.depth";

  /**
   * The system property fixing the seed of every conformance property at any depth (a decimal {@code
   * long}); empty or absent: fixed at {@code quick} and {@code ci}, a new one per run at {@code long}.
   */
  public static final String SEED_PROPERTY = "quiver.conformance.seed";

  /** The seed of quick and ci runs for properties that do not fix their own. */
  public static final String QUICK_SEED = "20261129";

  /** The depths, shallowest first. */
  public enum Depth {
    QUICK, CI, LONG;

    /** The value of {@value ConformanceDepth#PROPERTY} for this depth. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** This JVM's rotating seed, drawn once, so that one {@value #SEED_PROPERTY} reproduces a whole run. */
  private static final String RUN_SEED = Long.toString(ThreadLocalRandom.current().nextLong());

  private ConformanceDepth() {}

  /** The depth of this run. */
  public static Depth depth() {
    String depth = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
    switch (depth) {
      case "quick":
        return Depth.QUICK;
      case "":
      case "ci":
        return Depth.CI;
      case "long":
        return Depth.LONG;
      default:
        throw new IllegalArgumentException(
            "system property " + PROPERTY + " must be 'quick', 'ci' or 'long', got '" + depth + "'");
    }
  }

  /** Whether this run is a long one ({@code -Pconformance-long}). */
  public static boolean isLong() {
    return depth() == Depth.LONG;
  }

  /** {@code quick} in a quick run, {@code deep} in a long one, halfway between them in a ci run. */
  public static int pick(int quick, int deep) {
    return pick(quick, quick + (deep - quick) / 2, deep);
  }

  /** The value for this run's depth. */
  public static int pick(int quick, int ci, int deep) {
    return switch (depth()) {
      case QUICK -> quick;
      case CI -> ci;
      case LONG -> deep;
    };
  }

  /** The tries of {@code tries} at this run's depth: {@code ci} when given, else three times quick (at most deep). */
  static int tries(DepthTries tries) {
    int ci = tries.ci() > 0 ? tries.ci() : Math.min(tries.deep(), 3 * tries.quick());
    return pick(tries.quick(), ci, tries.deep());
  }

  /** The explicit seed of this run ({@value #SEED_PROPERTY}), if one was given. */
  static Optional<String> explicitSeed() {
    String seed = System.getProperty(SEED_PROPERTY, "").trim();
    if (seed.isEmpty()) {
      return Optional.empty();
    }
    try {
      Long.parseLong(seed);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "system property " + SEED_PROPERTY + " must be a decimal long (a seed jqwik printed), got '" + seed + "'");
    }
    return Optional.of(seed);
  }

  /**
   * The seed a property runs with at this depth.
   *
   * @param ownSeed the seed the property fixes with {@code @Property(seed = …)}, if any
   */
  static String seed(Optional<String> ownSeed) {
    Optional<String> explicit = explicitSeed();
    if (explicit.isPresent()) {
      return explicit.get();
    }
    return depth() == Depth.LONG ? RUN_SEED : ownSeed.orElse(QUICK_SEED);
  }

  /** The command-line flags that rerun a property with {@code seed} at this depth. */
  static String reproduction(String seed) {
    return "-D" + PROPERTY + "=" + depth().label() + " -D" + SEED_PROPERTY + "=" + seed;
  }

  /**
   * Sets the tries and the seed of a property annotated {@link DepthTries} from the current depth; prints
   * the seed, and names it with the flags that reproduce the run in a failure's message.
   */
  public static final class TriesHook implements AroundPropertyHook {
    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
      DepthTries tries = context.findAnnotation(DepthTries.class).orElseThrow(() -> new IllegalStateException(
          context.label() + ": TriesHook applies to properties annotated @DepthTries"));
      if (context.attributes().tries().isPresent()) {
        throw new IllegalStateException(context.label() + " sets tries in @Property and in @DepthTries;"
            + " give them only in @DepthTries (quick, ci and deep)");
      }
      int n = tries(tries);
      String seed = seed(context.attributes().seed().filter(s -> !s.isBlank()));
      context.attributes().setTries(n);
      context.attributes().setSeed(seed);
      String where = context.containerClass().getSimpleName() + "#" + context.targetMethod().getName();
      System.out.println("[conformance] " + where + ": depth " + depth().label() + ", " + n + " tries, seed "
          + seed);
      PropertyExecutionResult result = property.execute();
      if (result.status() != PropertyExecutionResult.Status.FAILED) {
        return result;
      }
      String used = result.seed().orElse(seed);
      Throwable cause = result.throwable().orElse(null);
      AssertionError named = new AssertionError(
          (cause == null || cause.getMessage() == null ? "property failed" : cause.getMessage())
              + "\n[conformance] " + where + " failed at depth " + depth().label() + " with seed " + used
              + "; rerun it with " + reproduction(used) + " -Dtest='" + where + "' (-Dit.test for an *IT)",
          cause);
      return result.mapToFailed(named);
    }
  }
}
