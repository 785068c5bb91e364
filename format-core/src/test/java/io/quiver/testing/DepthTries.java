package io.quiver.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The tries of a conformance property at each {@link ConformanceDepth}: {@code quick} with {@code
 * -Dquiver.conformance.depth=quick}, {@code ci} by default ({@code mvn -B verify}, CI), {@code deep} with
 * {@code -Pconformance-long}. Use it instead of {@code @Property(tries = …)}; the same hook sets the
 * property's seed (fixed at quick and ci, rotating at long, see {@link ConformanceDepth}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@AddLifecycleHook(ConformanceDepth.TriesHook.class)
public @interface DepthTries {
  /** Tries in a quick run. */
  int quick();

  /** Tries in a ci run, the default; unset (0 or less): three times {@link #quick}, at most {@link #deep}. */
  int ci() default -1;

  /** Tries in a long run ({@code -Pconformance-long}). */
  int deep();
}
