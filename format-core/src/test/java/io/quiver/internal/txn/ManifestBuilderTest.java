package io.quiver.internal.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    assertThat(m.version()).isEqualTo(1);
    assertThat(m.fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(0L));
    assertThat(m.maxFragmentId()).isEqualTo(OptionalLong.of(0));
    assertThat(m.maxFieldId()).isEqualTo(2);
    assertThat(m.config()).isEqualTo(Map.of("a", "1"));
    assertThat(m.liveRows()).isEqualTo(5);
    assertThat(m.timestamp()).isEqualTo(T);
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
    assertThat(v3.fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(0L, 1L, 2L, 3L));
    assertThat(v3.liveRows()).isEqualTo(5 + 3 + 4 + 7);
    assertThat(v3.transactionUuid()).isEqualTo(b.uuid());
    assertThat(v3.transactionPath()).isEqualTo(b.path());
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
    assertThat(v2.fragments().stream().map(Fragment::id).toList()).isEqualTo(List.of(1L));
    assertThat(v2.maxFieldId()).isEqualTo(3);
    assertThat(v2.config()).isEqualTo(Map.of("a", "1", "b", "2"));
  }

  @Test
  void appendingToNothingIsAClearError() {
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> builder.build(Optional.empty(), txn(0, new Operation.Append(List.of())), T));
  }

  @Test
  void appendOfFieldsTheSchemaNoLongerHasIsIncompatible() {
    Manifest v1 = create();
    Fragment stale = Fragment.of(0, List.of(DataFile.of("data/s.arrow", List.of(1, 99), 10)), 2);
    IncompatibleTransactionException e = assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> builder.build(Optional.of(v1), txn(1, new Operation.Append(List.of(stale))), T)).actual();
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
    IncompatibleTransactionException e = assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> resolver.check(txn(1, new Operation.Append(List.of())),
        List.of(new CommittedTransaction(2, txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of())))))).actual();
    assertThat(e.getMessage()).contains("version 2");
  }

  @Test
  void overwriteAfterAnythingIsRetryable() {
    for (Operation theirs : List.<Operation>of(new Operation.Append(List.of()),
        new Operation.Overwrite(SCHEMA, List.of(), Map.of()))) {
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of())),
          List.of(new CommittedTransaction(2, txn(1, theirs))))).actual();
      assertThat(e.getMessage()).contains(theirs.name()).contains("version 2");
      assertThat(e.isRetryable()).isTrue();
    }
  }

  @Test
  void nothingCommittedSinceIsCompatibleForEveryOperation() {
    assertThat(resolver.check(txn(1, new Operation.Overwrite(SCHEMA, List.of(), Map.of())), List.of()).isCompatible())
        .isTrue();
  }

  // ---- a change computed from a field that is gone (issue 13 §5): the builder's own precondition, and
  // the resolver's verdict for the same change when it has nothing to write (an empty delete or update)

  /** Version 2: version 1 with {@code name} (field 2) dropped. */
  private Manifest withNameDropped(Manifest v1) {
    return builder.build(Optional.of(v1),
        txn(1, Operation.Project.between(SCHEMA, SCHEMA.project(List.of(1)))), T);
  }

  private static List<Operation> changesThatRead(int fieldId) {
    Fragment f = fragment(5);
    return List.of(
        new Operation.Delete(List.of(new Operation.FragmentDeletion(0, Optional.empty(),
            new io.quiver.manifest.DeletionFile("_deletions/0-1-x.bin", 1, 10),
            org.roaringbitmap.buffer.ImmutableRoaringBitmap.bitmapOf(0))), java.util.Set.of(fieldId), "name = 'x'"),
        new Operation.Delete(List.of(), java.util.Set.of(fieldId), "name = 'x'"),
        new Operation.Update(List.of(), java.util.Set.of(fieldId)),
        new Operation.DataReplacement(List.of(new Operation.Replacement(0,
            DataFile.of("data/r.arrow", List.of(1), 10))), java.util.Set.of(fieldId)),
        new Operation.AddColumns(SCHEMA.project(List.of(1)), List.of(), java.util.Set.of(fieldId)));
  }

  @Test
  void aChangeThatReadADroppedFieldIsNotBuilt() {
    Manifest v2 = withNameDropped(create());
    for (Operation op : changesThatRead(2)) {
      RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).as(op.name()).isThrownBy(() -> builder.build(Optional.of(v2), txn(1, op), T)).actual();
      assertThat(e.getMessage()).contains("read field id 2").contains("Nothing was committed");
    }
  }

  @Test
  void aDeleteThatReadAKeptFieldIsBuiltAfterTheDrop() {
    Manifest v2 = withNameDropped(create());
    Operation delete = changesThatRead(1).get(0);
    Manifest v3 = builder.build(Optional.of(v2), txn(1, delete), T);
    assertThat(v3.liveRows()).isEqualTo(4);
  }

  @Test
  void theResolverRefusesEveryChangeThatReadADroppedFieldEvenWithNothingToWrite() {
    Manifest v1 = create();
    Transaction drop = txn(1, Operation.Project.between(SCHEMA, SCHEMA.project(List.of(1))));
    List<CommittedTransaction> since = List.of(new CommittedTransaction(2, drop));
    for (Operation op : changesThatRead(2)) {
      assertThatExceptionOfType(RetryableConflictException.class).as(op.name()).isThrownBy(() -> resolver.check(txn(1, op), since));
    }
    // The same changes reading only the kept field: the delete, update and replacement go through.
    for (Operation op : changesThatRead(1)) {
      if (op instanceof Operation.AddColumns) {
        // add-columns against a projection is retryable whatever it read: the schema it extends changed.
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(txn(1, op), since));
      } else {
        assertThat(resolver.check(txn(1, op), since).isCompatible()).as(op.name()).isTrue();
      }
    }
    assertThat(v1.version()).isEqualTo(1);
  }
}
