package io.quiver.internal.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.StatValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** Inserted keys: exact and Bloom forms, and the resolver's decisions from them and from statistics. */
class MergeKeysTest {
  static byte[] key(long v) {
    return MergeKeys.encode(List.of(new StatValue.Int(v)));
  }

  static MergeKeys keys(long from, long to) {
    List<byte[]> out = new ArrayList<>();
    for (long v = from; v < to; v++) {
      out.add(key(v));
    }
    return MergeKeys.of(out);
  }

  @Test
  void tuplesRoundTripAndDescribe() {
    List<StatValue> tuple = new ArrayList<>();
    tuple.add(new StatValue.Int(-7));
    tuple.add(new StatValue.Bytes("héllo".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    tuple.add(null);
    tuple.add(new StatValue.Decimal(java.math.BigInteger.valueOf(-12345)));
    tuple.add(new StatValue.UInt64(-1L));
    tuple.add(new StatValue.Bool(true));
    byte[] encoded = MergeKeys.encode(tuple);
    assertThat(MergeKeys.decode(encoded)).isEqualTo(tuple);
    assertThat(MergeKeys.describe(encoded)).isEqualTo("(-7, 'héllo', null, -12345, 18446744073709551615, true)");
  }

  @Test
  void exactUpToTheLimitThenABloomFilterWithoutFalseNegatives() {
    MergeKeys exact = keys(0, MergeKeys.EXACT_LIMIT);
    assertThat(exact.isExact()).isTrue();
    MergeKeys bloom = keys(0, MergeKeys.EXACT_LIMIT + 1);
    assertThat(bloom.isExact()).isFalse();
    for (long v = 0; v <= MergeKeys.EXACT_LIMIT; v++) {
      assertThat(bloom.mightContain(key(v))).isTrue();
    }
    int falsePositives = 0;
    for (long v = 1_000_000; v < 1_010_000; v++) {
      falsePositives += bloom.mightContain(key(v)) ? 1 : 0;
    }
    // The documented rate is 1%; allow three times that on this sample.
    assertThat(falsePositives).isLessThan(300);
    assertThat(exact.mightContain(key(MergeKeys.EXACT_LIMIT))).isFalse();
  }

  @Test
  void intersectionExactExactExactBloomAndBloomBloomByRanges() {
    assertThat(keys(0, 10).mayIntersect(keys(9, 20))).isTrue();
    assertThat(keys(0, 10).mayIntersect(keys(10, 20))).isFalse();
    MergeKeys bigLow = keys(0, MergeKeys.EXACT_LIMIT + 1);
    MergeKeys bigHigh = keys(100_000, 100_000 + MergeKeys.EXACT_LIMIT + 1);
    assertThat(bigLow.mayIntersect(keys(5, 6))).isTrue();
    assertThat(keys(5, 6).mayIntersect(bigLow)).isTrue();
    assertThat(bigLow.mayIntersect(bigHigh)).as("disjoint ranges").isFalse();
    assertThat(bigLow.mayIntersect(keys(50, 50 + MergeKeys.EXACT_LIMIT + 1))).isTrue();
    assertThat(MergeKeys.none().mayIntersect(keys(0, 1))).isFalse();
  }

  private static Fragment fragmentWithStats(int fieldId, Optional<StatValue> lo, Optional<StatValue> hi, long nulls) {
    DataFile file = DataFile.of("data/" + UUID.randomUUID() + ".arrow", List.of(fieldId), 100)
        .withStats(Optional.of(new FileStats(10, List.of(new ColumnStats(fieldId, nulls, OptionalLong.empty(), lo, hi, 0)))));
    return Fragment.of(0, List.of(file), 10);
  }

  @Test
  void appendedFragmentsAreJudgedByTheirKeyStatistics() {
    MergeKeys k = keys(100, 110);
    Fragment inside = fragmentWithStats(1, Optional.of(new StatValue.Int(105)), Optional.of(new StatValue.Int(200)), 0);
    Fragment outside = fragmentWithStats(1, Optional.of(new StatValue.Int(110)), Optional.of(new StatValue.Int(200)), 0);
    Fragment allNull = fragmentWithStats(1, Optional.empty(), Optional.empty(), 10);
    Fragment noStats = Fragment.of(0, List.of(DataFile.of("data/x.arrow", List.of(1), 100)), 10);
    Fragment noKeyColumn = Fragment.of(0, List.of(DataFile.of("data/y.arrow", List.of(2), 100)), 10);
    assertThat(k.mayBeIn(List.of(inside), List.of(1))).isTrue();
    assertThat(k.mayBeIn(List.of(outside), List.of(1))).isFalse();
    assertThat(k.mayBeIn(List.of(allNull), List.of(1))).isFalse();
    assertThat(k.mayBeIn(List.of(noStats), List.of(1))).as("missing statistics count as a match").isTrue();
    assertThat(k.mayBeIn(List.of(noKeyColumn), List.of(1))).as("a column it lacks is all null").isFalse();
    MergeKeys bloom = keys(100, 100 + MergeKeys.EXACT_LIMIT + 1);
    assertThat(bloom.mayBeIn(List.of(outside), List.of(1))).as("the range [100, 10100] meets [110, 200]").isTrue();
    Fragment far = fragmentWithStats(1, Optional.of(new StatValue.Int(50_000)), Optional.empty(), 0);
    assertThat(bloom.mayBeIn(List.of(far), List.of(1))).isFalse();
  }

  private static Operation.MergeInsert merge(MergeKeys inserted, boolean bySource) {
    return new Operation.MergeInsert(List.of(1), List.of(), List.of(),
        List.of(Fragment.of(0, List.of(DataFile.of("data/n.arrow", List.of(1), 10)), 1)), Set.of(1), Set.of(),
        inserted, bySource, "test");
  }

  private static void check(Operation ours, Operation theirs) {
    new ConflictResolver().check(new Transaction(UUID.randomUUID().toString(), 1, ours, Map.of()),
        List.of(new CommittedTransaction(2, new Transaction(UUID.randomUUID().toString(), 1, theirs, Map.of()))));
  }

  @Test
  void resolverDecisionsFromInsertedKeys() {
    // Same new key from the same version: never both.
    Assertions.assertThatExceptionOfType(RetryableConflictException.class)
        .isThrownBy(() -> check(merge(keys(5, 6), false), merge(keys(5, 6), false)))
        .withMessageContaining("both would insert one key");
    check(merge(keys(5, 6), false), merge(keys(6, 7), false));
    // Bloom against exact.
    Assertions.assertThatExceptionOfType(RetryableConflictException.class)
        .isThrownBy(() -> check(merge(keys(0, MergeKeys.EXACT_LIMIT + 1), false), merge(keys(77, 78), false)));
    // A delete by source against a concurrent insert of any row.
    Assertions.assertThatExceptionOfType(RetryableConflictException.class)
        .isThrownBy(() -> check(merge(keys(5, 6), true), merge(keys(6, 7), false)));
    // Against appends: by the appended fragment's statistics.
    Fragment appended = fragmentWithStats(1, Optional.of(new StatValue.Int(100)), Optional.of(new StatValue.Int(200)), 0);
    check(merge(keys(5, 6), false), new Operation.Append(List.of(appended)));
    Assertions.assertThatExceptionOfType(RetryableConflictException.class)
        .isThrownBy(() -> check(merge(keys(150, 151), false), new Operation.Append(List.of(appended))));
    // An append after a merge decides nothing from keys.
    check(new Operation.Append(List.of(appended)), merge(keys(150, 151), false));
  }
}
