package io.quiver.model;

import io.quiver.dataset.DatasetOptions;
import io.quiver.manifest.ScalarIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;
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
        .withAction(8, action(append()))
        .withAction(6, action(deleteIds()))
        .withAction(2, action(deleteBelow()))
        .withAction(6, action(update()))
        .withAction(2, action(handle().map(h -> step("h" + h + " add null column", w -> w.addNullColumn(h)))))
        .withAction(2, action(handle().map(h -> step("h" + h + " add computed column",
            w -> w.addComputedColumn(h)))))
        .withAction(2, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " drop column #" + k, w -> w.drop(h, k)))))
        .withAction(4, action(handle().map(h -> step("h" + h + " staged write of a new column",
            w -> w.stagedNewColumn(h)))))
        .withAction(4, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " staged rewrite of column #" + k, w -> w.stagedRewrite(h, k)))))
        .withAction(4, action(Combinators.combine(handle(), columnIndex()).as((h, k) ->
            step("h" + h + " replace column #" + k, w -> w.replace(h, k)))))
        .withAction(4, action(handle().map(h -> step("h" + h + " compact", w -> w.compact(h)))))
        .withAction(2, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " restore version #" + p, w -> w.restore(h, p)))))
        .withAction(4, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " checkout version #" + p, w -> w.checkout(h, p)))))
        .withAction(6, action(handle().map(h -> step("h" + h + " refresh", w -> w.refresh(h)))))
        .withAction(7, action(keyedAppend()))
        .withAction(3, action(crash()))
        .withAction(5, action(sequenced()))
        .withAction(2, action(Arbitraries.integers().between(0, ModelWorld.KEYS - 1).map(k ->
            step("restarted driver commits the saved results of k" + k, w -> w.commitSaved(k)))))
        .withAction(2, action(Combinators.combine(handle(), Arbitraries.integers().between(1, 3)).as((h, hours) ->
            step("h" + h + " cleanup down to the latest after +" + hours + "h", w -> w.cleanup(h, hours)))))
        .withAction(2, action(Combinators.combine(handle(), pick(), Arbitraries.integers().between(1, 3))
            .as((h, p, hours) -> step("h" + h + " cleanup before version #" + p + " after +" + hours + "h",
                w -> w.cleanupBefore(h, p, hours)))))
        .withAction(2, action(pick().map(p -> step("tag version #" + p, w -> w.tag(p)))))
        .withAction(1, action(pick().map(p -> step("untag #" + p, w -> w.untag(p)))))
        .withAction(2, action(handle().map(h -> step("h" + h + " restart", w -> w.restart(h)))))
        .withAction(1, action(Arbitraries.just(step("clock past the idempotence retention", ModelWorld::expire))))
        .withAction(3, action(Combinators.combine(handle(), columnIndex(), Arbitraries.of(ScalarIndex.Kind.class))
            .as((h, k, kind) -> step("h" + h + " create " + kind.label() + " index on column #" + k,
                w -> w.createIndex(h, k, kind)))))
        .withAction(2, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " optimize index #" + p, w -> w.optimizeIndex(h, p)))))
        .withAction(1, action(Combinators.combine(handle(), pick()).as((h, p) ->
            step("h" + h + " drop index #" + p, w -> w.dropIndex(h, p)))))
        .withMaxTransformations(maxSteps);
  }

  /** Runs the chain, checking the world after every step, and closes every world opened. */
  public void run(ActionChain<ModelWorld> chain) {
    try {
      chain.withInvariant("the four invariants of ModelWorld.Invariant", ModelWorld::check).run();
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

  /** A handle, or (the last value) a new process opening the table for one action. */
  private static Arbitrary<Integer> process() {
    return Arbitraries.integers().between(0, ModelWorld.NEW_PROCESS);
  }

  private static String who(int h) {
    return h == ModelWorld.NEW_PROCESS ? "new process" : "h" + h;
  }

  private static Arbitrary<Step> keyedAppend() {
    return Combinators.combine(process(), Arbitraries.integers().between(0, ModelWorld.KEYS - 1),
        Arbitraries.integers().between(1, 5), Arbitraries.frequency(Tuple.of(2, true), Tuple.of(1, false)),
        Arbitraries.of(false, true), Arbitraries.integers().between(0, 5))
        .as((h, k, n, retry, distributed, split) -> step(who(h) + " keyed append k" + k + " "
            + (retry ? "retry (else " + n + " rows)" : n + " new rows") + (distributed ? " via workers" : " via append")
            + " split " + split, w -> w.keyedAppend(h, k, n, retry, distributed, split)));
  }

  private static Arbitrary<Step> crash() {
    return Combinators.combine(process(), Arbitraries.integers().between(0, ModelWorld.KEYS - 1),
        Arbitraries.integers().between(1, 5), Arbitraries.of(true, false), Arbitraries.of(false, true),
        Arbitraries.integers().between(0, 5), Arbitraries.of(false, true))
        .as((h, k, n, afterCommit, distributed, split, reuse) -> step(who(h) + " keyed append k" + k + " (" + n
            + " rows if new) crashes " + (afterCommit ? "after" : "before") + " committing"
            + (distributed ? " via workers" : " via append") + " split " + split + ", restarts and recovers"
            + (reuse && !afterCommit ? " committing the saved results" : ""),
            w -> w.crash(h, k, n, afterCommit, distributed, split, reuse)));
  }

  private static Arbitrary<Step> sequenced() {
    return Combinators.combine(process(), Arbitraries.integers().between(0, ModelWorld.APPLICATIONS - 1),
        Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(2, 1), Tuple.of(2, 2), Tuple.of(2, 3)),
        Arbitraries.integers().between(1, 4), Arbitraries.of(false, true), Arbitraries.integers().between(0, 5),
        Arbitraries.of(false, true))
        .as((h, a, mode, n, distributed, split, newDriver) -> step(who(h) + " append " + n + " rows as app" + a + " "
            + List.of("next sequence", "sequence jumping ahead", "watermark sequence again", "older sequence").get(mode)
            + (distributed ? " via workers" + (newDriver && h < ModelWorld.NEW_PROCESS ? " committed by a new driver" : "")
                : " via append") + " split " + split,
            w -> w.sequenced(h, a, mode, n, distributed, split, newDriver)));
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
