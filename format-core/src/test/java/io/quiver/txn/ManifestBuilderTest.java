package io.quiver.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

class ManifestBuilderTest {
  private static final Instant T = Instant.ofEpochMilli(1_700_000_000_000L);
  private final ManifestBuilder builder = new ManifestBuilder("quiver-java/test");
  private final ConflictResolver resolver = new ConflictResolver();

  private static final Schema SCHEMA =
      Schema.fromArrow(
          new org.apache.arrow.vector.types.pojo.Schema(
              List.of(
                  new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                  new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
          new FieldIdAllocator(0));

  private static Fragment fragment(int rows) {
    return Fragment.of(0, List.of(DataFile.of("data/" + java.util.UUID.randomUUID() + ".arrow", List.of(1, 2), 100)),
        rows);
  }

  private static Transaction txn(long readVersion, Operation op) {
    return new Transaction(java.util.UUID.randomUUID().toString(), readVersion, op, Map.of());
  }

  private Manifest create() {
    return builder.build(Optional.empty(), txn(0, new Operation.Overwrite(SCHEMA, List.of(fragment(5)), Map.of("a", "1"))), T);
  }

  @Test
  void creatingATableMakesVersionOneWithFragmentIdsFromZero() {
    Manifest m = create();
    assertEquals(1, m.version());
    assertEquals(List.of(0L), m.fragments().stream().map(Fragment::id).toList());
    assertEquals(OptionalLong.of(0), m.maxFragmentId());
    assertEquals(2, m.maxFieldId());
    assertEquals(Map.of("a", "1"), m.config());
    assertEquals(5, m.liveRows());
    assertEquals(T, m.timestamp());
  }

  @Test
  void appendsAreNumberedFromTheMaxFragmentIdOfTheManifestTheyAreBuiltOn() {
    Manifest v1 = create();
    Transaction a = txn(1, new Operation.Append(List.of(fragment(3), fragment(4))));
    Transaction b = txn(1, new Operation.Append(List.of(fragment(7))));
    Manifest v2 = builder.build(Optional.of(v1), a, T);
    // b read version 1 but is built on version 2: its fragment gets the next free id, not a duplicate.
    resolver.check(b, List.of(new CommittedTransaction(2, a)));
    Manifest v3 = builder.build(Optional.of(v2), b, T);
    assertEquals(List.of(0L, 1L, 2L, 3L), v3.fragments().stream().map(Fragment::id).toList());
    assertEquals(5 + 3 + 4 + 7, v3.liveRows());
    assertEquals(b.uuid(), v3.transactionUuid());
    assertEquals(b.path(), v3.transactionPath());
  }

  @Test
  void overwriteNeverReusesFragmentOrFieldIds() {
    Manifest v1 = create();
    Schema other =
        Schema.fromArrow(
            new org.apache.arrow.vector.types.pojo.Schema(
                List.of(new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null))),
            new FieldIdAllocator(v1.maxFieldId()));
    Fragment f = Fragment.of(0, List.of(DataFile.of("data/x.arrow", List.of(3), 10)), 2);
    Manifest v2 = builder.build(Optional.of(v1), txn(1, new Operation.Overwrite(other, List.of(f), Map.of("b", "2"))), T);
    assertEquals(List.of(1L), v2.fragments().stream().map(Fragment::id).toList());
    assertEquals(3, v2.maxFieldId());
    assertEquals(Map.of("a", "1", "b", "2"), v2.config());
  }

  @Test
  void appendingToNothingIsAClearError() {
    assertThrows(InvalidArgumentException.class,
        () -> builder.build(Optional.empty(), txn(0, new Operation.Append(List.of())), T));
  }

  @Test
  void appendOfFieldsTheSchemaNoLongerHasIsIncompatible() {
    Manifest v1 = create();
    Fragment stale = Fragment.of(0, List.of(DataFile.of("data/s.arrow", List.of(1, 99), 10)), 2);
    IncompatibleTransactionException e = assertThrows(IncompatibleTransactionException.class,
        () -> builder.build(Optional.of(v1), txn(1, new Operation.Append(List.of(stale))), T));
    assertThat(e.getMessage()).contains("field id 99");
  }

  @Test
  void appendAfterAppendIsCompatible() {
    assertThat(resolver.check(txn(1, new Operation.Append(List.of())),
            List.of(new CommittedTransaction(2, txn(1, new Operation.Append(List.of())))))
        .isCompatible()).isTrue();
  }

  @Test
  void appendAfterOverwriteIsIncompatible() {
    IncompatibleTransactionException e = assertThrows(IncompatibleTransactionException.class,
        () -> resolver.check(txn(1, new Operation.Append(List.of())),
            List.of(new CommittedTransaction(2, txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of()))))));
    assertThat(e.getMessage()).contains("version 2");
  }

  @Test
  void overwriteAfterAnythingIsRetryable() {
    for (Operation theirs : List.<Operation>of(new Operation.Append(List.of()),
        new Operation.Overwrite(SCHEMA, List.of(), Map.of()))) {
      RetryableConflictException e = assertThrows(RetryableConflictException.class,
          () -> resolver.check(txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of())),
              List.of(new CommittedTransaction(2, txn(1, theirs)))));
      assertThat(e.getMessage()).contains(theirs.name()).contains("version 2");
      assertThat(e.isRetryable()).isTrue();
    }
  }

  @Test
  void nothingCommittedSinceIsCompatibleForEveryOperation() {
    assertThat(resolver.check(txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of())), List.of()).isCompatible())
        .isTrue();
  }
}
