package io.quiver.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every E6 scenario of {@link DerivedColumnScenarios} on the memory store, with a leak-checking allocator
 * (conformance-tests runs the same bodies on every store fixture).
 */
class DerivedColumnScenariosTest {
  @TestFactory
  Stream<DynamicTest> e6OnTheMemoryStore() {
    List<Method> scenarios = Arrays.stream(DerivedColumnScenarios.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()))
        .filter(m -> m.getName().startsWith("e6_"))
        .sorted(Comparator.comparing(Method::getName))
        .toList();
    assertThat(scenarios).hasSizeGreaterThanOrEqualTo(12);
    return scenarios.stream().map(m -> DynamicTest.dynamicTest(m.getName(), () -> {
      try (RootAllocator allocator = new RootAllocator();
          ScenarioTable table = ScenarioTable.on(new MemoryObjectStore("memory://e6"), allocator)) {
        m.invoke(null, table);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }));
  }
}
