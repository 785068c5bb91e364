package io.quiver.model;

import io.quiver.dataset.DatasetOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Random histories of {@link ModelWorld} actions for jqwik's {@link ActionChain}, usable on any store: give
 * it a source of fresh table URIs and the dataset options for the store. Each action is a small record
 * whose {@code toString} reads as a step of the history ({@code h1 delete 3 <= id < 7}), so a shrunk
 * failure prints a readable minimal history; the world's own history (in the failure message) adds what
 * each step resolved to at run time (column names, versions, the outcome).
 *
 * <p>Use one instance per property: {@link #run} closes every world the chain opened, even on failure.
 */
public final class ModelChains {
  private final Supplier<String> uris;
  private final Function<BufferAllocator, DatasetOptions> options;
  private final List<ModelWorld> opened = new ArrayList<>();

  public ModelChains(Supplier<String> uris, Function<BufferAllocator, DatasetOptions> options) {
    this.uris = uris;
    this.options = options;
  }

  /** One step of a history. */
  public record Step(String text, Consumer<ModelWorld> apply) {
    @Override
    public String toString() {
      return text;
    }
  }

  /** Chains of up to {@code maxSteps} steps over a fresh table. */
  public ActionChainArbitrary<ModelWorld> chains(int maxSteps) {
    return ActionChain.<ModelWorld>startWith(this::newWorld)
        .withAction(4, action(append()))
        .withAction(3, action(deleteIds()))
        .withAction(1, action(deleteBelow()))
        .withAction(3, action(update()))
        .withAction(1, action(handle().map(h -> step("h" + h + " add null column", w -> w.addNullColumn(h)))))
        .withAction(1, action(handle().map(h -> step("h" + h + " add computed column",
            w -> w.addComputedColumn(h)))))
        .withAction(1, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " drop column #" + k, w -> w.drop(h, k)))))
        .withAction(2, action(handle().map(h -> step("h" + h + " staged write of a new column",
            w -> w.stagedNewColumn(h)))))
        .withAction(2, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " staged rewrite of column #" + k, w -> w.stagedRewrite(h, k)))))
        .withAction(2, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " replace column #" + k, w -> w.replace(h, k)))))
        .withAction(2, action(handle().map(h -> step("h" + h + " compact", w -> w.compact(h)))))
        .withAction(1, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " restore version #" + p, w -> w.restore(h, p)))))
        .withAction(2, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " checkout version #" + p, w -> w.checkout(h, p)))))
        .withAction(3, action(handle().map(h -> step("h" + h + " refresh", w -> w.refresh(h)))))
        .withMaxTransformations(maxSteps);
  }

  /** Runs the chain, checking the world after every step, and closes every world opened. */
  public void run(ActionChain<ModelWorld> chain) {
    try {
      chain.withInvariant("quiver equals the model", ModelWorld::check).run();
    } finally {
      RuntimeException closing = null;
      for (ModelWorld w : opened) {
        w.outcomes().forEach(o -> Statistics.label("writes").collect(o));
        try {
          w.close();
        } catch (RuntimeException e) {
          closing = e;
        }
      }
      opened.clear();
      if (closing != null) {
        throw closing;
      }
    }
  }

  private ModelWorld newWorld() {
    ModelWorld w = new ModelWorld(uris.get(), options);
    opened.add(w);
    return w;
  }

  private static Action.Independent<ModelWorld> action(Arbitrary<Step> steps) {
    return () -> steps.map(s -> Transformer.<ModelWorld>mutate(s.text(), s.apply()));
  }

  private static Step step(String text, Consumer<ModelWorld> apply) {
    return new Step(text, apply);
  }

  private static Arbitrary<Integer> handle() {
    return Arbitraries.integers().between(0, ModelWorld.HANDLES - 1);
  }

  private static Arbitrary<Integer> columnIndex() {
    return Arbitraries.integers().between(0, 3);
  }

  /** A position among the committed versions, oldest first, taken modulo their number. */
  private static Arbitrary<Integer> pick() {
    return Arbitraries.integers().between(0, 12);
  }

  private static Arbitrary<Step> append() {
    return Combinators.combine(handle(), Arbitraries.integers().between(1, 6)).as((h, n) ->
        step("h" + h + " append " + n + " rows", w -> w.append(h, n)));
  }

  private static Arbitrary<Step> deleteIds() {
    return Combinators.combine(handle(), Arbitraries.integers().between(0, 30), Arbitraries.integers().between(1, 6))
        .as((h, lo, len) -> step("h" + h + " delete " + lo + " <= id < " + (lo + len), w -> w.deleteIds(h, lo, len)));
  }

  private static Arbitrary<Step> deleteBelow() {
    return Combinators.combine(handle(), columnIndex(), Arbitraries.integers().between(0, 1000))
        .as((h, k, limit) -> step("h" + h + " delete where column #" + k + " < " + limit,
            w -> w.deleteBelow(h, k, limit)));
  }

  private static Arbitrary<Step> update() {
    return Combinators.combine(handle(), Arbitraries.integers().between(0, 30), Arbitraries.integers().between(1, 8),
        columnIndex(), Arbitraries.integers().between(-5, 5))
        .as((h, lo, len, k, value) -> step("h" + h + " update column #" + k + " = " + value + " where " + lo
            + " <= id < " + (lo + len), w -> w.update(h, lo, len, k, value)));
  }
}
