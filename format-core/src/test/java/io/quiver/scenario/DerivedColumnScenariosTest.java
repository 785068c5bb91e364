package io.quiver.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.txn.BrokenWitnessCheck;
import io.quiver.store.MemoryObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every E6 scenario of {@link DerivedColumnScenarios} on the memory store, with a leak-checking allocator
 * (conformance-tests runs the same bodies on every store fixture).
 */
class DerivedColumnScenariosTest {
  /**
   * The scenarios whose stale write only a witness comparison catches (the input witness, or for the
   * input that is also a target, the written field's): without it they commit the stale values.
   */
  private static final List<String> CAUGHT_ONLY_BY_A_WITNESS = List.of(
      "e6_concurrentReplacementOfAnInputMakesTheDerivedColumnStale",
      "e6_concurrentStagedRewriteOfAnInputMakesTheDerivedColumnStale",
      "e6_concurrentUpdateOfAnInputCellMakesTheDerivedColumnStale",
      "e6_inputChangedWhileTheCommitRetriesIsCaughtOnTheRetry",
      "e6_inputThatIsAlsoATargetIsBoundOnceAndCommits",
      "e6_manyWorkersOneCommitNamesTheStaleFragmentAndARecomputeCommits",
      "e6_structInputBindsEveryMemberAndAChangedMemberIsNamed");

  private static List<Method> scenarios() {
    List<Method> scenarios = Arrays.stream(DerivedColumnScenarios.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()))
        .filter(m -> m.getName().startsWith("e6_"))
        .sorted(Comparator.comparing(Method::getName))
        .toList();
    assertThat(scenarios).hasSizeGreaterThanOrEqualTo(13);
    return scenarios;
  }

  private static void runOnMemory(Method scenario) throws Throwable {
    try (RootAllocator allocator = new RootAllocator();
        ScenarioTable table = ScenarioTable.on(new MemoryObjectStore("memory://e6"), allocator)) {
      scenario.invoke(null, table);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @TestFactory
  Stream<DynamicTest> e6OnTheMemoryStore() {
    return scenarios().stream().map(m -> DynamicTest.dynamicTest(m.getName(), () -> runOnMemory(m)));
  }

  /** The scenarios have teeth: with the witness comparison skipped, exactly the expected ones fail. */
  @Test
  void withoutTheWitnessComparisonTheStaleDerivedColumnsCommitAndTheScenariosFail() {
    Map<String, String> failed = new TreeMap<>();
    for (Method m : scenarios()) {
      BrokenWitnessCheck.run(() -> {
        try {
          runOnMemory(m);
        } catch (Throwable t) {
          failed.put(m.getName(), String.valueOf(t.getMessage()));
        }
      });
    }
    assertThat(BrokenWitnessCheck.active()).isFalse();
    assertThat(failed.keySet()).containsExactlyInAnyOrderElementsOf(CAUGHT_ONLY_BY_A_WITNESS);
    // Each fails where it expects the StaleColumnWriteException (AssertJ: "Expecting code to raise a throwable").
    assertThat(failed.values()).allMatch(why -> why.contains("Expecting code to raise a throwable"));
  }
}
