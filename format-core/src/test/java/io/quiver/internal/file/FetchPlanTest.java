package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The fetch plan: which spans a scan's reads become, in which order, and where each buffer lands. */
class FetchPlanTest {
  private static ReadOptions options(int gap, long target) {
    return new ReadOptions(gap, target, 4, 1 << 20, true);
  }

  private static List<long[]> ranges(long... offsetLength) {
    java.util.ArrayList<long[]> out = new java.util.ArrayList<>();
    for (int i = 0; i < offsetLength.length; i += 2) {
      out.add(new long[] {offsetLength[i], offsetLength[i + 1]});
    }
    return out;
  }

  @Test
  void consecutiveBatchesMergeUpToTheTargetSize() {
    FetchPlan.Builder b = FetchPlan.builder(options(100, 1000));
    // 10 batches, each a 180-byte buffer with a 20-byte gap to the next batch's (another column, metadata)
    for (int batch = 0; batch < 10; batch++) {
      b.add("f", "mem://f", batch, ranges(batch * 200L, 180));
    }
    FetchPlan plan = b.build();
    // 5 buffers fit in 1000 bytes (4 × 200 + 180 = 980): spans of batches 0-4 and 5-9
    assertThat(plan.spans()).hasSize(2);
    assertThat(plan.spans().get(0)).isEqualTo(new FetchPlan.Span("f", "mem://f", 0, 980, 0, 4, 5));
    assertThat(plan.spans().get(1)).isEqualTo(new FetchPlan.Span("f", "mem://f", 1000, 1980, 5, 9, 5));
    assertThat(plan.requests(1000)).isEqualTo(2);
    assertThat(plan.placement(7).span()).containsExactly(1);
    assertThat(plan.placement(7).offset()).containsExactly(400);
  }

  @Test
  void aReadThatDoesNotFitTheCurrentSpanStartsOneOfItsOwnInsteadOfBeingCutAcrossTwo() {
    FetchPlan.Builder b = FetchPlan.builder(options(100, 1000));
    // 4 batches of three buffers, 600 bytes each with 10-byte gaps between batches: two never fit in 1000
    for (int batch = 0; batch < 4; batch++) {
      long at = batch * 610L;
      b.add("f", "mem://f", batch, ranges(at, 100, at + 100, 200, at + 300, 300));
    }
    FetchPlan plan = b.build();
    // every batch is the only read of its span, so it decodes from slices of it (no copy)
    assertThat(plan.spans()).extracting(FetchPlan.Span::start, FetchPlan.Span::end, FetchPlan.Span::reads)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, 600L, 1),
            org.assertj.core.groups.Tuple.tuple(610L, 1210L, 1),
            org.assertj.core.groups.Tuple.tuple(1220L, 1820L, 1),
            org.assertj.core.groups.Tuple.tuple(1830L, 2430L, 1));
    assertThat(plan.placement(2).span()).containsExactly(2, 2, 2);
    assertThat(plan.placement(2).offset()).containsExactly(0, 100, 300);
    // a read whose first buffer overlaps the current span still joins it (a buffer lives in one span); its
    // next buffer, past the target, starts the next span as before
    FetchPlan.Builder o = FetchPlan.builder(options(100, 1000));
    o.add("f", "mem://f", 0, ranges(0, 600));
    o.add("f", "mem://f", 1, ranges(500, 100, 600, 600));
    assertThat(o.build().spans()).extracting(FetchPlan.Span::start, FetchPlan.Span::reads)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 2), org.assertj.core.groups.Tuple.tuple(600L, 1));
  }

  @Test
  void aGapWiderThanTheCoalescingGapStartsAnotherSpan() {
    FetchPlan.Builder b = FetchPlan.builder(options(10, 1 << 20));
    b.add("f", "mem://f", 0, ranges(0, 100, 105, 50)); // 5-byte gap: merged
    b.add("f", "mem://f", 1, ranges(300, 10)); // 145 bytes after: another span
    FetchPlan plan = b.build();
    assertThat(plan.spans()).extracting(FetchPlan.Span::start, FetchPlan.Span::end)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 155L), org.assertj.core.groups.Tuple.tuple(300L, 310L));
    assertThat(plan.placement(0).offset()).containsExactly(0, 105);
    assertThat(plan.bytes()).isEqualTo(165);
  }

  @Test
  void aBufferLargerThanTheTargetIsOneSpanOfSeveralRequests() {
    FetchPlan.Builder b = FetchPlan.builder(options(8, 100));
    b.add("f", "mem://f", 0, ranges(0, 8, 8, 950)); // validity, then 950 bytes of values
    FetchPlan plan = b.build();
    assertThat(plan.spans()).hasSize(2);
    assertThat(plan.spans().get(1).length()).isEqualTo(950);
    assertThat(plan.spans().get(1).requests(100)).isEqualTo(10);
    assertThat(plan.requests(100)).isEqualTo(11);
  }

  @Test
  void buffersAreTakenInTheOrderTheDecoderAsksForThemWhateverTheirOffsets() {
    FetchPlan.Builder b = FetchPlan.builder(options(8, 1 << 20));
    b.add("f", "mem://f", 0, ranges(500, 10, 0, 0, 480, 20)); // out of order, one empty
    FetchPlan plan = b.build();
    assertThat(plan.spans()).hasSize(1);
    assertThat(plan.spans().get(0).start()).isEqualTo(480);
    assertThat(plan.placement(0).span()).containsExactly(0, -1, 0);
    assertThat(plan.placement(0).offset()).containsExactly(20, 0, 0);
  }

  @Test
  void filesInterleaveInTheOrderTheirSpansAreFirstNeeded() {
    FetchPlan.Builder b = FetchPlan.builder(options(0, 100));
    for (int step = 0; step < 4; step++) {
      b.add("a", "mem://a", step, ranges(step * 60L, 60)); // 60 + 60 > 100: a span per batch
      if (step % 2 == 0) {
        b.add("o", "mem://o", step, ranges(step * 10L, 20)); // an overlay read every other step
      }
    }
    FetchPlan plan = b.build();
    assertThat(plan.spans()).extracting(FetchPlan.Span::key, FetchPlan.Span::firstStep, FetchPlan.Span::lastStep)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", 0, 0),
            org.assertj.core.groups.Tuple.tuple("o", 0, 2), // 0..20 and 20..40 touch
            org.assertj.core.groups.Tuple.tuple("a", 1, 1),
            org.assertj.core.groups.Tuple.tuple("a", 2, 2),
            org.assertj.core.groups.Tuple.tuple("a", 3, 3));
    assertThat(plan.spans().get(1).reads()).isEqualTo(2);
  }

  @Test
  void stepsMustNotGoBack() {
    FetchPlan.Builder b = FetchPlan.builder(ReadOptions.defaults());
    b.add("f", "mem://f", 3, ranges(0, 1));
    assertThatThrownBy(() -> b.add("f", "mem://f", 2, ranges(1, 1))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void optionsRefuseImpossibleBoundsSayingWhatIsAllowed() {
    assertThatThrownBy(() -> new ReadOptions(0, 0, 4, 1, true)).hasMessageContaining("requestBytes must be >= 1");
    assertThatThrownBy(() -> new ReadOptions(0, 1, 65, 1, true)).hasMessageContaining("requestsInFlight must be in [0, 64]");
    assertThatThrownBy(() -> new ReadOptions(0, 1, 1, -1, true)).hasMessageContaining("prefetchBytes must be >= 0");
  }
}
