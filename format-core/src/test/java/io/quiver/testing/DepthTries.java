package io.quiver.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The tries of a conformance property at each {@link ConformanceDepth}: {@code quick} by default, {@code
 * deep} with {@code -Pconformance-long}. Use it instead of {@code @Property(tries = …)}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@AddLifecycleHook(ConformanceDepth.TriesHook.class)
public @interface DepthTries {
  /** Tries in the default, quick run. */
  int quick();

  /** Tries in a long run ({@code -Pconformance-long}). */
  int deep();
}
