package io.quiver.conformance;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Runs the annotated test class — a suite subclass, or {@link StoreConformance} for every suite — once per
 * store fixture, in the order given: a JUnit {@link ParameterizedClass} whose invocations are named by
 * {@link StoreFixture#name()}. Each invocation creates its fixture (public no-argument constructor), injects
 * it into the suite ({@link StoreSuite}) and closes it when the class is done on that store.
 *
 * <p>{@code -Dquiver.conformance.stores=s3,gcs} runs only the fixtures of those names (a comma-separated
 * list; empty or absent: all), e.g. to run one emulator suite at a time.
 *
 * <p>Usable as a meta-annotation: {@code @OnStores({S3StoreFixture.class, …}) @interface EmulatedStores {}}.
 */
@Documented
@Inherited
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedClass(name = "{argumentSetName}", allowZeroInvocations = true)
@ArgumentsSource(OnStoresArguments.class)
public @interface OnStores {
  /** The system property that filters the fixtures by name. */
  String FILTER = "quiver.conformance.stores";

  /** The fixtures, each with a public no-argument constructor. */
  Class<? extends StoreFixture>[] value();
}
