package io.quiver.internal.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.internal.txn.Operation.Kind;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * One test per cell of the conflict matrix, against the pure resolver. The expected verdicts are
 * written out here independently of {@link ConflictResolver#MATRIX}, so a changed rule fails a test.
 *
 * <p>Each cell is checked with a "hot" pair (ours and theirs touch fragment 1, field 1, config key
 * "a") and a "cold" pair (ours touches fragment 2, field 2, config key "b"; theirs is hot). Codes: C
 * compatible for both; X incompatible for both; R retryable for both; r retryable when hot, compatible
 * when cold; B rebase when hot, compatible when cold; k retryable when hot (colliding config key),
 * compatible when cold; x incompatible when hot, compatible when cold.
 */
class ConflictMatrixTest {
  // theirs: APPEND OVERWRITE DELETE UPDATE ADD_COLUMNS PROJECT REPLACE_DATA REWRITE RESTORE UPDATE_CONFIG WRITE_COLUMNS
  //         MERGE_INSERT ROW_DELTA UPDATE_INDICES
  private static final Map<Kind, String> EXPECTED =
      Map.ofEntries(
          Map.entry(Kind.APPEND, "CXCCRrCCXCRCCC"),
          Map.entry(Kind.OVERWRITE, "RRRRRRRRRkRRRC"),
          Map.entry(Kind.DELETE, "CXBrCrrrXCrrrC"),
          Map.entry(Kind.UPDATE, "CXCrCrrrXCrrrC"),
          // The hot merge-insert sample inserts rows, so an add-columns after it is always retryable.
          Map.entry(Kind.ADD_COLUMNS, "RXCrRRrRXCRRRC"),
          Map.entry(Kind.PROJECT, "rXCrRRrCXCRrrC"),
          Map.entry(Kind.REPLACE_DATA, "CXCrCrrrXCrrrC"),
          Map.entry(Kind.REWRITE, "CXrrRrrrXCRrrC"),
          Map.entry(Kind.RESTORE, "RRRRRRRRRRRRRC"),
          Map.entry(Kind.UPDATE_CONFIG, "CkCCCCCCkkCCCC"),
          // Staged column writes: the witness check in the manifest builder decides, not the matrix.
          Map.entry(Kind.WRITE_COLUMNS, "CCCCCCCCXCCCCC"),
          // The hot sample inserts key 5 (an appended file without statistics may hold it); the cold one
          // inserts nothing, uses fragment 2 and keys on field 2.
          Map.entry(Kind.MERGE_INSERT, "rXrrrrrrXCrrrC"),
          // The hot row delta deletes in fragment 1, adds a fragment and is serializable with no filter (every
          // added row counts as read); the cold one deletes in fragment 2, adds nothing, under snapshot isolation.
          Map.entry(Kind.ROW_DELTA, "rXrrrrrrXCrrrC"),
          // Index commits: the hot sample creates index "a" on field 1 (which the hot projection drops), the cold
          // one index "b" on field 2.
          Map.entry(Kind.UPDATE_INDICES, "CXCCCxCCXCCCCx"));

  private static final Schema SCHEMA =
      Schema.fromArrow(
          new org.apache.arrow.vector.types.pojo.Schema(
              List.of(
                  new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null),
                  new Field("b", FieldType.nullable(new ArrowType.Int(64, true)), null),
                  new Field("c", FieldType.nullable(new ArrowType.Int(64, true)), null))),
          new FieldIdAllocator(0));

  private final ConflictResolver resolver = new ConflictResolver();

  @TestFactory
  Stream<DynamicTest> everyCellOfTheMatrix() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Kind ours : Kind.values()) {
      for (Kind theirs : Kind.values()) {
        char code = EXPECTED.get(ours).charAt(theirs.ordinal());
        tests.add(DynamicTest.dynamicTest(ours.label() + " after " + theirs.label() + " = " + code,
            () -> checkCell(ours, theirs, code)));
      }
    }
    return tests.stream();
  }

  private void checkCell(Kind ours, Kind theirs, char code) {
    Transaction theirsHot = txn(op(theirs, true));
    Transaction oursHot = txn(op(ours, true));
    Transaction oursCold = txn(op(ours, false));
    List<CommittedTransaction> committed = List.of(new CommittedTransaction(2, theirsHot));
    switch (code) {
      case 'C' -> {
        assertThat(resolver.check(oursHot, committed).isCompatible()).isTrue();
        assertThat(resolver.check(oursCold, committed).isCompatible()).isTrue();
      }
      case 'X' -> {
        IncompatibleTransactionException e =
            assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> resolver.check(oursHot, committed)).actual();
        assertThat(e.getMessage()).contains("version 2").contains("Nothing was committed");
        assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> resolver.check(oursCold, committed));
      }
      case 'R' -> {
        RetryableConflictException e =
            assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(oursHot, committed)).actual();
        assertThat(e.getMessage()).contains("version 2").contains("Nothing was committed");
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(oursCold, committed));
      }
      case 'r', 'k' -> {
        assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(oursHot, committed));
        assertThat(resolver.check(oursCold, committed).isCompatible()).isTrue();
      }
      case 'x' -> {
        assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> resolver.check(oursHot, committed));
        assertThat(resolver.check(oursCold, committed).isCompatible()).isTrue();
      }
      case 'B' -> {
        assertThat(resolver.check(oursHot, committed).deletionRebaseFragments()).isEqualTo(Set.of(1L));
        assertThat(resolver.check(oursCold, committed).isCompatible()).isTrue();
      }
      default -> throw new AssertionError("unknown code " + code);
    }
  }

  @Test
  void docsConflictMatrixIsGeneratedFromTheResolver() throws Exception {
    Path doc = Path.of("..", "docs", "conflict-matrix.md");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    String begin = "<!-- BEGIN GENERATED MATRIX -->\n";
    String end = "<!-- END GENERATED MATRIX -->";
    assertThat(text).contains(begin).contains(end);
    String body = text.substring(text.indexOf(begin) + begin.length(), text.indexOf(end));
    assertThat(body).as("docs/conflict-matrix.md is out of date: paste ConflictResolver.markdown() between its markers").isEqualTo(ConflictResolver.markdown());
  }

  @Test
  void everyCellHasAVerdictAndAReason() {
    for (Kind ours : Kind.values()) {
      for (Kind theirs : Kind.values()) {
        ConflictResolver.Cell cell = ConflictResolver.MATRIX.get(ours).get(theirs);
        assertThat(cell).as(ours + " after " + theirs).isNotNull();
        assertThat(cell.verdict()).isNotBlank();
        assertThat(cell.reason()).isNotBlank();
      }
    }
  }

  @Test
  void eachCommittedTransactionIsCheckedInOrderAndTheFirstConflictWins() {
    Transaction ours = txn(op(Kind.APPEND, true));
    List<CommittedTransaction> history =
        List.of(new CommittedTransaction(2, txn(op(Kind.APPEND, true))),
            new CommittedTransaction(3, txn(op(Kind.ADD_COLUMNS, true))),
            new CommittedTransaction(4, txn(op(Kind.OVERWRITE, true))));
    RetryableConflictException e = assertThatExceptionOfType(RetryableConflictException.class).isThrownBy(() -> resolver.check(ours, history)).actual();
    assertThat(e.getMessage()).contains("add-columns committed as version 3");
  }

  // ------------------------------------------------------------------ sample operations

  private static Transaction txn(Operation op) {
    return new Transaction(UUID.randomUUID().toString(), 1, op, Map.of());
  }

  private static DataFile file(int fieldId) {
    return DataFile.of("data/" + UUID.randomUUID() + ".arrow", List.of(fieldId), 100);
  }

  private static Fragment fragment(long id, int fieldId) {
    return Fragment.of(id, List.of(file(fieldId)), 10);
  }

  /** A sample of each kind; hot ones touch fragment 1 / field 1 / key "a", cold ones fragment 2 / field 2 / key "b". */
  static Operation op(Kind kind, boolean hot) {
    long fragment = hot ? 1 : 2;
    int field = hot ? 1 : 2;
    String key = hot ? "a" : "b";
    MutableRoaringBitmap offsets = MutableRoaringBitmap.bitmapOf(3, 4);
    return switch (kind) {
      case APPEND -> new Operation.Append(List.of(fragment(0, field)));
      case OVERWRITE -> new Operation.Overwrite(SCHEMA, List.of(fragment(0, field)), Map.of(key, "1"));
      case DELETE ->
          new Operation.Delete(
              List.of(new Operation.FragmentDeletion(fragment, Optional.empty(),
                  new DeletionFile("_deletions/" + fragment + "-1-x.bin", 2, 20), offsets.toImmutableRoaringBitmap())),
              Set.of(field), field + " > 3");
      case UPDATE ->
          new Operation.Update(
              List.of(new Operation.FragmentOverlays(fragment,
                  List.of(new Overlay(file(field), new Coverage.Shared(offsets.toImmutableRoaringBitmap()), 0)))),
              Set.of(field));
      case ADD_COLUMNS ->
          new Operation.AddColumns(SCHEMA, List.of(new Operation.FragmentFile(fragment, file(10))), Set.of(field));
      case PROJECT -> new Operation.Project(SCHEMA, hot ? Set.of(1) : Set.of(3), hot ? Set.of(1) : Set.of());
      case REPLACE_DATA ->
          new Operation.DataReplacement(List.of(new Operation.Replacement(fragment, file(field))), Set.of(field));
      case REWRITE ->
          new Operation.Rewrite(List.of(new Operation.RewriteGroup(List.of(fragment), List.of(fragment(0, field)))));
      case RESTORE -> new Operation.Restore(1, SCHEMA, List.of(fragment(fragment, field)), Map.of(key, "1"));
      case UPDATE_CONFIG -> new Operation.UpdateConfig(Map.of(key, "1"), Set.of());
      case MERGE_INSERT -> mergeInsert(fragment, field, hot);
      case UPDATE_INDICES -> new Operation.UpdateIndices(Operation.UpdateIndices.Action.CREATE,
          new io.quiver.manifest.ScalarIndex(UUID.randomUUID().toString(), key, io.quiver.manifest.ScalarIndex.Kind.BTREE,
              field, 1, List.of()));
      case ROW_DELTA -> new Operation.RowDelta(
          List.of(new Operation.FragmentDeletion(fragment, Optional.empty(),
              new DeletionFile("_deletions/" + fragment + "-1-y.bin", 2, 20), offsets.toImmutableRoaringBitmap())),
          hot ? List.of(fragment(0, field)) : List.of(), Set.of(field), Set.of(fragment), hot, Optional.empty(),
          "spark MERGE");
      case WRITE_COLUMNS -> {
        ArrowType int64 = new ArrowType.Int(64, true);
        Schema contract = new Schema(List.of(io.quiver.schema.Field.of(field, -1, "f" + field, int64, true),
            io.quiver.schema.Field.of(10, -1, "n", int64, true)));
        yield new Operation.WriteColumns(List.of(new Operation.ColumnWrite(fragment, 10, List.of(), contract,
            Set.of(10), DataFile.of("data/" + UUID.randomUUID() + ".arrow", List.of(field, 10), 100),
            List.of(new FieldBacking(field, Optional.empty(), List.of()),
                new FieldBacking(10, Optional.empty(), List.of())))));
      }
    };
  }

  /**
   * A merge-insert keyed on {@code field}: overlays on {@code fragment} (field {@code field}), and when hot one
   * new fragment holding inserted key 5.
   */
  static Operation.MergeInsert mergeInsert(long fragment, int field, boolean hot) {
    MutableRoaringBitmap offsets = MutableRoaringBitmap.bitmapOf(3, 4);
    List<Operation.FragmentOverlays> overlays = List.of(new Operation.FragmentOverlays(fragment,
        List.of(new Overlay(file(field), new Coverage.Shared(offsets.toImmutableRoaringBitmap()), 0))));
    MergeKeys keys = hot ? MergeKeys.of(List.of(MergeKeys.encode(List.of(new io.quiver.manifest.StatValue.Int(5)))))
        : MergeKeys.none();
    return new Operation.MergeInsert(List.of(field), List.of(), overlays, hot ? List.of(fragment(0, field)) : List.of(),
        Set.of(field), Set.of(fragment), keys, false, "on [f" + field + "]");
  }
}
