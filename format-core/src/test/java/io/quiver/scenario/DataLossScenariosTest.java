package io.quiver.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every F scenario of {@link DataLossScenarios} on the memory store, with a leak-checking allocator
 * (conformance-tests runs the same bodies on every store fixture, and the broken variants).
 */
class DataLossScenariosTest {
  @TestFactory
  Stream<DynamicTest> fOnTheMemoryStore() {
    var scenarios = Arrays.stream(DataLossScenarios.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()))
        .filter(m -> m.getName().matches("f\\d+_\\w+") && m.getParameterCount() == 1)
        .sorted(Comparator.comparing(Method::getName))
        .toList();
    assertThat(scenarios).as("F1-F13").hasSize(13);
    return scenarios.stream().map(m -> DynamicTest.dynamicTest(m.getName(), () -> {
      try (RootAllocator allocator = new RootAllocator();
          ScenarioTable table = ScenarioTable.on(new MemoryObjectStore("memory://f"), allocator)) {
        m.invoke(null, table);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }));
  }
}
