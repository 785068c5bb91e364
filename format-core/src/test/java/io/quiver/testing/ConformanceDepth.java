package io.quiver.testing;

import java.util.Locale;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How deep the conformance properties search (model-based histories, fault schedules, serial equivalence,
 * interleavings): {@code quick} by default, sized for CI; {@code long} with the Maven profile {@code
 * -Pconformance-long}, which sets the system property {@value #PROPERTY} for surefire and failsafe. A
 * property gives both sizes with {@link DepthTries} (its tries) and {@link #pick} (chain lengths and the
 * like). A property's fixed seed stays fixed, so each depth is reproducible on its own.
 */
public final class ConformanceDepth {
  /** The system property naming the depth: {@code quick} (the default) or {@code long}. */
  public static final String PROPERTY = "quiver.conformance.depth";

  private ConformanceDepth() {}

  /** Whether this run is a long one ({@code -Pconformance-long}). */
  public static boolean isLong() {
    String depth = System.getProperty(PROPERTY, "quick").trim().toLowerCase(Locale.ROOT);
    switch (depth) {
      case "":
      case "quick":
        return false;
      case "long":
        return true;
      default:
        throw new IllegalArgumentException(
            "system property " + PROPERTY + " must be 'quick' or 'long', got '" + depth + "'");
    }
  }

  /** {@code quick} in a quick run, {@code deep} in a long one. */
  public static int pick(int quick, int deep) {
    return isLong() ? deep : quick;
  }

  /** Sets the tries of a property annotated {@link DepthTries} from the current depth. */
  public static final class TriesHook implements AroundPropertyHook {
    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
      DepthTries tries = context.findAnnotation(DepthTries.class).orElseThrow(() -> new IllegalStateException(
          context.label() + ": TriesHook applies to properties annotated @DepthTries"));
      if (context.attributes().tries().isPresent()) {
        throw new IllegalStateException(context.label() + " sets tries in @Property and in @DepthTries;"
            + " give them only in @DepthTries (quick and deep)");
      }
      context.attributes().setTries(pick(tries.quick(), tries.deep()));
      return property.execute();
    }
  }
}
