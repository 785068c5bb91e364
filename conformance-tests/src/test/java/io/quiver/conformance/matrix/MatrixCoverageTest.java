package io.quiver.conformance.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.OnStores;
import io.quiver.conformance.StoreConformance;
import io.quiver.conformance.StoreFixture;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Every suite runs on every store: each suite of conformance-suite is listed in {@link
 * StoreConformance#SUITES}, nested in {@link StoreConformance} (what an adapter module runs), and bound here
 * by a {@code <Suite>Test} on the fast stores and a {@code <Suite>IT} on the emulated ones.
 */
class MatrixCoverageTest {
  private static final String MATRIX = "io.quiver.conformance.matrix.";

  /** The abstract classes of the suite's package that hold tests (JUnit's own discovery predicate). */
  private static Set<Class<?>> suitesInTheSuiteJar() {
    return ReflectionSupport.findAllClassesInPackage("io.quiver.conformance",
            c -> Modifier.isAbstract(c.getModifiers()) && !c.isInterface() && c.getEnclosingClass() == null
                && c.getProtectionDomain().getCodeSource() != null
                && !c.getProtectionDomain().getCodeSource().equals(MatrixCoverageTest.class.getProtectionDomain().getCodeSource())
                && hasTests(c),
            name -> true)
        .stream().collect(Collectors.toSet());
  }

  private static boolean hasTests(Class<?> c) {
    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
      if (Arrays.stream(k.getDeclaredMethods()).anyMatch(m -> AnnotationSupport.isAnnotated(m, Test.class))) {
        return true;
      }
    }
    return false;
  }

  private static Set<String> storesOf(Class<?> matrixClass) {
    Optional<OnStores> on = AnnotationSupport.findAnnotation(matrixClass, OnStores.class);
    assertThat(on).as(matrixClass.getSimpleName() + " is @OnStores").isPresent();
    return Arrays.stream(on.get().value()).map(MatrixCoverageTest::nameOf).collect(Collectors.toSet());
  }

  private static String nameOf(Class<? extends StoreFixture> type) {
    try (StoreFixture fixture = type.getConstructor().newInstance()) {
      return fixture.name();
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(type + " cannot be created", e);
    }
  }

  @Test
  void everySuiteIsListedAndNestedInStoreConformance() {
    assertThat(StoreConformance.SUITES).containsExactlyInAnyOrderElementsOf(suitesInTheSuiteJar());
    List<Class<?>> nested = Arrays.stream(StoreConformance.class.getDeclaredClasses())
        .filter(c -> c.isAnnotationPresent(Nested.class))
        .map(Class::getSuperclass)
        .collect(Collectors.toList());
    assertThat(nested).containsExactlyInAnyOrderElementsOf(StoreConformance.SUITES);
  }

  @Test
  void everySuiteRunsOnEveryStoreOfBothTiers() throws Exception {
    for (Class<?> suite : StoreConformance.SUITES) {
      Class<?> fast = Class.forName(MATRIX + suite.getSimpleName() + "Test");
      Class<?> emulated = Class.forName(MATRIX + suite.getSimpleName() + "IT");
      assertThat(fast.getSuperclass()).isEqualTo(suite);
      assertThat(emulated.getSuperclass()).isEqualTo(suite);
      assertThat(storesOf(fast)).as(fast.getSimpleName()).contains("memory", "local");
      assertThat(storesOf(emulated)).as(emulated.getSimpleName()).contains("s3", "gcs", "azure");
    }
  }
}
