package io.quiver.internal.txn;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.internal.txn.Operation.Kind;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides whether a transaction may still be committed on top of the transactions committed after its
 * read version. Pure: no I/O, no clock.
 *
 * <p>Every ordered pair of operation kinds is one {@link Cell} of {@link #MATRIX}: a verdict with a
 * one-line reason and the check that applies it. {@code docs/conflict-matrix.md} is generated from the
 * same table (see {@link #markdown()}) and a test keeps the two identical.
 *
 * <p>Granularity: operations conflict only when they touch a common fragment and a common field (or when
 * one of them replaces the table or its schema), so writers working on different fragments or different
 * columns never get in each other's way.
 */
public final class ConflictResolver {

  /** What the commit loop must do when nothing is in the way. */
  public record Resolution(Set<Long> deletionRebaseFragments) {
    public Resolution {
      deletionRebaseFragments = Set.copyOf(deletionRebaseFragments);
    }

    /** True when the transaction can be built as it is. */
    public boolean isCompatible() {
      return deletionRebaseFragments.isEmpty();
    }
  }

  /** Outcome of one cell for one pair of transactions. */
  enum Outcome {
    COMPATIBLE,
    REBASE,
    RETRYABLE,
    INCOMPATIBLE
  }

  @FunctionalInterface
  interface Check {
    Outcome apply(Operation ours, Operation theirs);
  }

  /**
   * One cell of the matrix.
   *
   * @param verdict the verdict as the documentation states it
   * @param reason why, in one line
   * @param check the rule itself
   */
  record Cell(String verdict, String reason, Check check) {}


  /**
   * Checks {@code ours} against each committed transaction newer than its read version, oldest first.
   *
   * @return what the commit must do before building (rebase deletion files of some fragments, or
   *     nothing)
   * @throws RetryableConflictException if re-reading and recomputing may succeed
   * @throws IncompatibleTransactionException if the transaction can no longer be meaningful
   */
  public Resolution check(Transaction ours, List<CommittedTransaction> committedSince) {
    Set<Long> rebase = new TreeSet<>();
    for (CommittedTransaction theirs : committedSince) {
      Operation theirOp = theirs.transaction().operation();
      Cell cell = MATRIX.get(ours.operation().kind()).get(theirOp.kind());
      switch (cell.check().apply(ours.operation(), theirOp)) {
        case COMPATIBLE -> { }
        case REBASE -> rebase.addAll(intersection(ours.operation().touchedFragments(), theirOp.touchedFragments()));
        case RETRYABLE ->
            throw new RetryableConflictException(
                ours.operation().name() + " read at version " + ours.readVersion() + " conflicts with the "
                    + theirOp.name() + " committed as version " + theirs.version() + ": " + cell.reason()
                    + ". Nothing was committed; re-open the latest version and redo the change.");
        case INCOMPATIBLE ->
            throw new IncompatibleTransactionException(
                ours.operation().name() + " read at version " + ours.readVersion() + " conflicts with the "
                    + theirOp.name() + " committed as version " + theirs.version() + ": " + cell.reason()
                    + ". Nothing was committed; decide whether the change still applies to the new table.");
      }
    }
    return new Resolution(rebase);
  }

  // ------------------------------------------------------------------ the matrix

  private static final Check OK = (o, t) -> Outcome.COMPATIBLE;
  private static final Check RETRY = (o, t) -> Outcome.RETRYABLE;
  private static final Check NEVER = (o, t) -> Outcome.INCOMPATIBLE;

  /** ours → theirs → cell. Declared after the checks it uses. */
  static final Map<Kind, Map<Kind, Cell>> MATRIX = buildMatrix();

  private static Check retryIf(java.util.function.BiPredicate<Operation, Operation> condition) {
    return (o, t) -> condition.test(o, t) ? Outcome.RETRYABLE : Outcome.COMPATIBLE;
  }

  private static boolean overlap(Operation a, Operation b) {
    return !intersection(a.touchedFragments(), b.touchedFragments()).isEmpty();
  }

  private static <T> Set<T> intersection(Collection<T> a, Collection<T> b) {
    Set<T> out = new HashSet<>(a);
    out.retainAll(b);
    return out;
  }

  private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
    Set<Integer> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  /** Same fragment, and their written fields meet the fields we read or write. */
  private static boolean theyChangedWhatWeUse(Operation ours, Operation theirs) {
    return overlap(ours, theirs)
        && !intersection(theirs.writtenFieldIds(), union(ours.readFieldIds(), ours.writtenFieldIds())).isEmpty();
  }

  /** Their projection dropped a field we read or write, or made non-nullable a field we write. */
  private static boolean projectionHitsWrites(Operation ours, Operation theirs) {
    Operation.Project p = (Operation.Project) theirs;
    return !intersection(p.droppedFieldIds(), union(ours.readFieldIds(), ours.writtenFieldIds())).isEmpty()
        || !intersection(p.tightenedFieldIds(), ours.writtenFieldIds()).isEmpty();
  }

  /** Our projection made non-nullable a field they wrote (they may have written nulls). */
  private static boolean ourTighteningMeetsTheirWrites(Operation ours, Operation theirs) {
    return !intersection(((Operation.Project) ours).tightenedFieldIds(), theirs.writtenFieldIds()).isEmpty();
  }

  /** Their staged column writes added new columns. */
  private static boolean theyAddedColumns(Operation ours, Operation theirs) {
    return !((Operation.WriteColumns) theirs).newFieldIds().isEmpty();
  }

  // ---- merge-insert checks (ours is the merge-insert unless named otherwise)

  /** Their appended rows may hold a key we insert, or we delete every row the source does not match. */
  private static boolean appendMeetsMerge(Operation ours, Operation theirs) {
    Operation.MergeInsert m = (Operation.MergeInsert) ours;
    List<io.quiver.manifest.Fragment> appended = ((Operation.Append) theirs).fragments();
    return (m.deletesBySource() && !appended.isEmpty()) || m.insertedKeys().mayBeIn(appended, m.keyFieldIds());
  }

  /** They changed or removed a fragment whose rows we matched, read or touched. */
  private static boolean touchesMergeFragments(Operation ours, Operation theirs) {
    return !intersection(((Operation.MergeInsert) ours).usedFragments(), theirs.touchedFragments()).isEmpty();
  }

  /**
   * They wrote a key column anywhere (a row may now hold, or no longer hold, a key we decided about — even in
   * a fragment we pruned by statistics), or a field we read or write in a fragment we used.
   */
  private static boolean changedMergeInputs(Operation ours, Operation theirs) {
    Operation.MergeInsert m = (Operation.MergeInsert) ours;
    if (!intersection(theirs.writtenFieldIds(), m.keyFieldIds()).isEmpty()) {
      return true;
    }
    return !intersection(m.usedFragments(), theirs.touchedFragments()).isEmpty()
        && !intersection(theirs.writtenFieldIds(), union(m.readFieldIds(), m.writtenFieldIds())).isEmpty();
  }

  /** Two merge-inserts meet: an inserted key may be in both, a delete by source misses the other's rows, or a used fragment was touched. */
  private static boolean mergesMeet(Operation ours, Operation theirs) {
    Operation.MergeInsert a = (Operation.MergeInsert) ours;
    Operation.MergeInsert b = (Operation.MergeInsert) theirs;
    boolean keysMeet = a.keyFieldIds().equals(b.keyFieldIds())
        ? a.insertedKeys().mayIntersect(b.insertedKeys())
        : a.inserts() && b.inserts(); // other key columns: nothing to compare, so any two inserts may meet
    return keysMeet
        || (a.deletesBySource() && b.inserts())
        || (b.deletesBySource() && a.inserts())
        || !intersection(a.usedFragments(), b.touchedFragments()).isEmpty();
  }

  // ---- row-delta checks (ours is the row delta unless named otherwise)

  /** They changed or removed a fragment whose rows we read or deleted. */
  private static boolean touchesDeltaFragments(Operation ours, Operation theirs) {
    return !intersection(((Operation.RowDelta) ours).usedFragments(), theirs.touchedFragments()).isEmpty();
  }

  /**
   * They changed rows we read or deleted, or — under serializable isolation — wrote a column our read filtered
   * on anywhere (a row we did not see may now match).
   */
  private static boolean changedDeltaInputs(Operation ours, Operation theirs) {
    Operation.RowDelta d = (Operation.RowDelta) ours;
    return touchesDeltaFragments(ours, theirs)
        || (d.serializable() && !intersection(theirs.writtenFieldIds(), d.readFieldIds()).isEmpty());
  }

  /** The rows they added are rows our read would have seen (serializable isolation only). */
  private static List<io.quiver.manifest.Fragment> addedFragments(Operation theirs) {
    if (theirs instanceof Operation.Append a) {
      return a.fragments();
    }
    if (theirs instanceof Operation.MergeInsert mi) {
      return mi.newFragments();
    }
    if (theirs instanceof Operation.RowDelta rd) {
      return rd.newFragments();
    }
    return List.of();
  }

  private static boolean deltaWouldHaveRead(Operation ours, Operation theirs) {
    return ((Operation.RowDelta) ours).wouldHaveRead(addedFragments(theirs));
  }

  /** A merge-insert (ours) meets a committed row delta: as against an append plus a delete. */
  private static boolean deltaMeetsMerge(Operation ours, Operation theirs) {
    Operation.MergeInsert m = (Operation.MergeInsert) ours;
    List<io.quiver.manifest.Fragment> added = ((Operation.RowDelta) theirs).newFragments();
    return !intersection(m.usedFragments(), theirs.touchedFragments()).isEmpty()
        || (m.deletesBySource() && !added.isEmpty()) || m.insertedKeys().mayBeIn(added, m.keyFieldIds());
  }

  private static boolean sameIndexClash(Operation ours, Operation theirs) {
    Operation.UpdateIndices o = (Operation.UpdateIndices) ours;
    Operation.UpdateIndices t = (Operation.UpdateIndices) theirs;
    if (!o.index().name().equals(t.index().name())) {
      return false;
    }
    return !(o.action() == Operation.UpdateIndices.Action.OPTIMIZE
        && t.action() == Operation.UpdateIndices.Action.OPTIMIZE && o.index().uuid().equals(t.index().uuid()));
  }

  private static boolean configKeysCollide(Operation ours, Operation theirs) {
    return !intersection(configKeys(ours), configKeys(theirs)).isEmpty();
  }

  private static Set<String> configKeys(Operation op) {
    if (op instanceof Operation.UpdateConfig c) {
      return c.keys();
    }
    if (op instanceof Operation.Overwrite o) {
      return o.configUpserts().keySet();
    }
    if (op instanceof Operation.Restore r) {
      return r.config().keySet();
    }
    return Set.of();
  }

  private static Map<Kind, Map<Kind, Cell>> buildMatrix() {
    Map<Kind, Map<Kind, Cell>> m = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      m.put(k, new EnumMap<>(Kind.class));
    }
    String replaced = "the table it was computed from was replaced";
    // Every operation against a committed overwrite or restore, except where listed below.
    for (Kind ours : Kind.values()) {
      m.get(ours).put(Kind.OVERWRITE, new Cell("incompatible", replaced + " by an overwrite", NEVER));
      m.get(ours).put(Kind.RESTORE, new Cell("incompatible", replaced + " by a restore", NEVER));
    }

    // ---- append
    Map<Kind, Cell> append = m.get(Kind.APPEND);
    append.put(Kind.APPEND, new Cell("compatible", "new fragments get the next free ids when the manifest is built", OK));
    append.put(Kind.DELETE, new Cell("compatible", "deletes only touch existing fragments", OK));
    append.put(Kind.UPDATE, new Cell("compatible", "updates only touch existing fragments", OK));
    append.put(Kind.ADD_COLUMNS, new Cell("retryable", "the appended rows would lack the columns just added", RETRY));
    append.put(Kind.PROJECT, new Cell("retryable if it dropped or made non-nullable a field we write",
        "our files would store a dropped field, or nulls in a non-nullable one", retryIf(ConflictResolver::projectionHitsWrites)));
    append.put(Kind.REPLACE_DATA, new Cell("compatible", "replacements only touch existing fragments", OK));
    append.put(Kind.REWRITE, new Cell("compatible", "compaction only touches existing fragments", OK));
    append.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- overwrite: computed from its read version; committing would silently discard the other commit
    Map<Kind, Cell> overwrite = m.get(Kind.OVERWRITE);
    String discard = "committing would silently discard it";
    for (Kind theirs : Kind.values()) {
      overwrite.put(theirs, new Cell("retryable", discard, RETRY));
    }
    overwrite.put(Kind.UPDATE_CONFIG, new Cell("retryable if a configuration key collides",
        "both set the same configuration key", retryIf(ConflictResolver::configKeysCollide)));

    // ---- delete
    Map<Kind, Cell> delete = m.get(Kind.DELETE);
    delete.put(Kind.APPEND, new Cell("compatible", "appended rows are not among the rows we delete", OK));
    delete.put(Kind.DELETE, new Cell("rebase on a shared fragment",
        "deletion sets are unioned into a new deletion file; a row deleted twice stays deleted",
        (o, t) -> overlap(o, t) ? Outcome.REBASE : Outcome.COMPATIBLE));
    delete.put(Kind.UPDATE, new Cell("retryable if it changed a field our predicate read in a shared fragment",
        "our predicate saw values that changed", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    delete.put(Kind.ADD_COLUMNS, new Cell("compatible", "new columns cover every physical row; deletions persist", OK));
    delete.put(Kind.PROJECT, new Cell("retryable if it dropped a field our predicate read",
        "our predicate names a column that no longer exists", retryIf(ConflictResolver::projectionHitsWrites)));
    delete.put(Kind.REPLACE_DATA, new Cell("retryable if it replaced a field our predicate read in a shared fragment",
        "our predicate saw values that changed", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    delete.put(Kind.REWRITE, new Cell("retryable on a shared fragment", "compaction moved the rows we address",
        retryIf(ConflictResolver::overlap)));
    delete.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- update (overlays)
    Map<Kind, Cell> update = m.get(Kind.UPDATE);
    update.put(Kind.APPEND, new Cell("compatible", "updates only touch existing fragments", OK));
    update.put(Kind.DELETE, new Cell("compatible", "deletions win over overlays; our cells on deleted rows are inert", OK));
    update.put(Kind.UPDATE, new Cell("retryable if it wrote a field we read or write in a shared fragment",
        "our values were computed from cells that changed, or would silently overwrite theirs",
        retryIf(ConflictResolver::theyChangedWhatWeUse)));
    update.put(Kind.ADD_COLUMNS, new Cell("compatible", "the added columns are not ones we read or write", OK));
    update.put(Kind.PROJECT, new Cell("retryable if it dropped a field we read or write, or made non-nullable one we write",
        "our overlay would read or target a dropped field, or hold nulls in a non-nullable one",
        retryIf(ConflictResolver::projectionHitsWrites)));
    update.put(Kind.REPLACE_DATA, new Cell("retryable if it replaced a field we read or write in a shared fragment",
        "our values were computed from replaced data", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    update.put(Kind.REWRITE, new Cell("retryable on a shared fragment", "compaction moved the rows our overlay covers",
        retryIf(ConflictResolver::overlap)));
    update.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- add columns
    Map<Kind, Cell> add = m.get(Kind.ADD_COLUMNS);
    add.put(Kind.APPEND, new Cell("retryable", "the new fragments would lack our columns", RETRY));
    add.put(Kind.DELETE, new Cell("compatible", "our files cover every physical row; deletions persist", OK));
    add.put(Kind.UPDATE, new Cell("retryable if it wrote a field we read",
        "our values were computed from cells that changed",
        retryIf((o, t) -> !intersection(t.writtenFieldIds(), o.readFieldIds()).isEmpty())));
    add.put(Kind.ADD_COLUMNS, new Cell("retryable", "both allocated field ids from the same high-water mark", RETRY));
    add.put(Kind.PROJECT, new Cell("retryable", "the schema we extend changed", RETRY));
    add.put(Kind.REPLACE_DATA, new Cell("retryable if it replaced a field we read",
        "our values were computed from replaced data",
        retryIf((o, t) -> !intersection(t.writtenFieldIds(), o.readFieldIds()).isEmpty())));
    add.put(Kind.REWRITE, new Cell("retryable", "our files belong to fragments compaction replaced", RETRY));
    add.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- project (drop, rename, nullability)
    Map<Kind, Cell> project = m.get(Kind.PROJECT);
    project.put(Kind.APPEND, new Cell("retryable if we make non-nullable a field it wrote",
        "it may have written nulls we did not check", retryIf(ConflictResolver::ourTighteningMeetsTheirWrites)));
    project.put(Kind.DELETE, new Cell("compatible", "deleting rows keeps the schema valid", OK));
    project.put(Kind.UPDATE, new Cell("retryable if we make non-nullable a field it wrote",
        "it may have written nulls we did not check", retryIf(ConflictResolver::ourTighteningMeetsTheirWrites)));
    project.put(Kind.ADD_COLUMNS, new Cell("retryable", "the schema we project changed", RETRY));
    project.put(Kind.PROJECT, new Cell("retryable", "the schema we project changed", RETRY));
    project.put(Kind.REPLACE_DATA, new Cell("retryable if we make non-nullable a field it wrote",
        "it may have written nulls we did not check", retryIf(ConflictResolver::ourTighteningMeetsTheirWrites)));
    project.put(Kind.REWRITE, new Cell("compatible", "compaction keeps values and field ids", OK));
    project.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of the schema", OK));

    // ---- replace data
    Map<Kind, Cell> replace = m.get(Kind.REPLACE_DATA);
    replace.put(Kind.APPEND, new Cell("compatible", "we only replace data of existing fragments", OK));
    replace.put(Kind.DELETE, new Cell("compatible", "our files cover every physical row; deleted rows stay deleted", OK));
    replace.put(Kind.UPDATE, new Cell("retryable if it wrote a field we read or replace in a shared fragment",
        "replacing would hide or ignore its newer cells", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    replace.put(Kind.ADD_COLUMNS, new Cell("compatible", "the added columns are not ones we replace", OK));
    replace.put(Kind.PROJECT, new Cell("retryable if it dropped a field we read or replace, or made non-nullable one we replace",
        "we would read or write a dropped field, or write nulls in a non-nullable one",
        retryIf(ConflictResolver::projectionHitsWrites)));
    replace.put(Kind.REPLACE_DATA, new Cell("retryable if it replaced a field we read or replace in a shared fragment",
        "one of the two replacements would silently win", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    replace.put(Kind.REWRITE, new Cell("retryable on a shared fragment", "compaction replaced the fragment",
        retryIf(ConflictResolver::overlap)));
    replace.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- rewrite (compaction)
    Map<Kind, Cell> rewrite = m.get(Kind.REWRITE);
    rewrite.put(Kind.APPEND, new Cell("compatible", "appended fragments are not being compacted", OK));
    rewrite.put(Kind.DELETE, new Cell("retryable on a shared fragment", "we would resurrect rows it deleted",
        retryIf(ConflictResolver::overlap)));
    rewrite.put(Kind.UPDATE, new Cell("retryable on a shared fragment", "we would drop its overlays",
        retryIf(ConflictResolver::overlap)));
    rewrite.put(Kind.ADD_COLUMNS, new Cell("retryable", "our new fragments would lack the added columns", RETRY));
    rewrite.put(Kind.PROJECT, new Cell("retryable if it dropped or made non-nullable a field we write",
        "our files would store a dropped field", retryIf(ConflictResolver::projectionHitsWrites)));
    rewrite.put(Kind.REPLACE_DATA, new Cell("retryable on a shared fragment", "we would drop its replacement",
        retryIf(ConflictResolver::overlap)));
    rewrite.put(Kind.REWRITE, new Cell("retryable on a shared fragment", "both rewrote the same fragment",
        retryIf(ConflictResolver::overlap)));
    rewrite.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));

    // ---- restore: like overwrite, computed from its read version
    Map<Kind, Cell> restore = m.get(Kind.RESTORE);
    for (Kind theirs : Kind.values()) {
      restore.put(theirs, new Cell("retryable", discard, RETRY));
    }

    // ---- write columns (staged column writes): the witness check decides, whatever the other commit was
    Map<Kind, Cell> write = m.get(Kind.WRITE_COLUMNS);
    for (Kind theirs : Kind.values()) {
      write.put(theirs, new Cell("compatible",
          "the manifest builder compares every witness, contract and new field id with the table it builds on,"
              + " so any change to what we write fails with a stale-column-write error", OK));
    }
    write.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));
    // Deletion sets only grow, except through a restore: it can make rows live again whose staged values
    // were placeholders for deleted rows, and no witness of files or overlays would notice.
    write.put(Kind.RESTORE, new Cell("incompatible",
        "the table it was computed from was replaced by a restore, which can make deleted rows live again"
            + " whose staged values were only placeholders", NEVER));
    // ... and every other kind against a committed write-columns, like add-columns and replace-data.
    append.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns",
        "the appended rows would lack the columns just added", retryIf(ConflictResolver::theyAddedColumns)));
    delete.put(Kind.WRITE_COLUMNS, new Cell("retryable if it wrote a field our predicate read in a shared fragment",
        "our predicate saw values that changed", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    update.put(Kind.WRITE_COLUMNS, new Cell("retryable if it wrote a field we read or write in a shared fragment",
        "our values were computed from replaced data", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    add.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns or wrote a field we read",
        "both allocated field ids from the same high-water mark, or our values were computed from replaced data",
        retryIf((o, t) -> theyAddedColumns(o, t) || !intersection(t.writtenFieldIds(), o.readFieldIds()).isEmpty())));
    project.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns or wrote a field we make non-nullable",
        "the schema we project changed, or it may have written nulls we did not check",
        retryIf((o, t) -> theyAddedColumns(o, t) || ourTighteningMeetsTheirWrites(o, t))));
    replace.put(Kind.WRITE_COLUMNS, new Cell("retryable if it wrote a field we read or replace in a shared fragment",
        "one of the two replacements would silently win", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    rewrite.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns or wrote to a shared fragment",
        "our new fragments would lack its columns or drop its values",
        retryIf((o, t) -> theyAddedColumns(o, t) || overlap(o, t))));

    // ---- merge-insert (upsert by key): what it decided from the keys it read must still hold
    Map<Kind, Cell> merge = m.get(Kind.MERGE_INSERT);
    merge.put(Kind.APPEND, new Cell("retryable if its rows may hold a key we insert, or we delete by source",
        "both would insert the key (decided from its fragments' key statistics; missing statistics count as a"
            + " match), or serially we would have deleted its rows", retryIf(ConflictResolver::appendMeetsMerge)));
    merge.put(Kind.DELETE, new Cell("retryable on a fragment we matched, read or touched",
        "a row we matched or decided about may be gone", retryIf(ConflictResolver::touchesMergeFragments)));
    merge.put(Kind.UPDATE, new Cell("retryable if it wrote a key column, or a field we read or write in a fragment we used",
        "keys or values we decided from changed", retryIf(ConflictResolver::changedMergeInputs)));
    merge.put(Kind.ADD_COLUMNS, new Cell("retryable if we insert rows", "our new fragments would lack the columns just added",
        retryIf((o, t) -> ((Operation.MergeInsert) o).inserts())));
    merge.put(Kind.PROJECT, new Cell("retryable if it dropped a field we read or write (a key column included), or made non-nullable one we write",
        "our keys, conditions or cells name a dropped field, or hold nulls in a non-nullable one",
        retryIf(ConflictResolver::projectionHitsWrites)));
    merge.put(Kind.REPLACE_DATA, new Cell("retryable if it replaced a key column, or a field we read or write in a fragment we used",
        "keys or values we decided from changed", retryIf(ConflictResolver::changedMergeInputs)));
    merge.put(Kind.REWRITE, new Cell("retryable on a fragment we matched, read or touched",
        "compaction moved the rows we matched", retryIf(ConflictResolver::touchesMergeFragments)));
    merge.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));
    merge.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns while we insert, wrote a key column, or a field we use in a fragment we used",
        "our new fragments would lack its columns, or keys or values we decided from changed",
        retryIf((o, t) -> (theyAddedColumns(o, t) && ((Operation.MergeInsert) o).inserts())
            || changedMergeInputs(o, t))));
    merge.put(Kind.MERGE_INSERT, new Cell("retryable if its inserted keys may meet ours, or either inserts while the other deletes by source, or it touched a fragment we used",
        "both would insert one key, or serially one would have deleted the other's rows, or rows we matched changed",
        retryIf(ConflictResolver::mergesMeet)));
    // ... and every other kind against a committed merge-insert, as against an append plus an update plus a
    // delete (overwrite, restore, update-config and write-columns rows are set by their loops above/below).
    append.put(Kind.MERGE_INSERT, new Cell("compatible",
        "an append decides nothing from keys; the merge's cells and deletions only touch existing fragments", OK));
    delete.put(Kind.MERGE_INSERT, new Cell("retryable if it changed a field our predicate read or deleted rows in a shared fragment",
        "our predicate saw values that changed, or our deletion file is no longer the fragment's",
        retryIf(ConflictResolver::theyChangedWhatWeUse)));
    update.put(Kind.MERGE_INSERT, new Cell("retryable if it wrote a field we read or write in a shared fragment",
        "our values were computed from cells that changed, or would silently overwrite theirs",
        retryIf(ConflictResolver::theyChangedWhatWeUse)));
    add.put(Kind.MERGE_INSERT, new Cell("retryable if it inserted rows or wrote a field we read",
        "the new fragments would lack our columns, or our values were computed from cells that changed",
        retryIf((o, t) -> ((Operation.MergeInsert) t).inserts()
            || !intersection(t.writtenFieldIds(), o.readFieldIds()).isEmpty())));
    project.put(Kind.MERGE_INSERT, new Cell("retryable if we make non-nullable a field it wrote",
        "it may have written nulls we did not check", retryIf(ConflictResolver::ourTighteningMeetsTheirWrites)));
    replace.put(Kind.MERGE_INSERT, new Cell("retryable if it wrote a field we read or replace in a shared fragment",
        "replacing would hide or ignore its newer cells", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    rewrite.put(Kind.MERGE_INSERT, new Cell("retryable on a shared fragment",
        "we would drop its cells or resurrect rows it deleted", retryIf(ConflictResolver::overlap)));

    // ---- row delta (an engine's MERGE INTO / UPDATE / DELETE): the rows it read must not have changed
    Map<Kind, Cell> delta = m.get(Kind.ROW_DELTA);
    delta.put(Kind.APPEND, new Cell("retryable if serializable and its rows may match what we read",
        "serially we would have read its rows (decided from its fragments' statistics against our conflict"
            + " filter; missing statistics count as a match)", retryIf(ConflictResolver::deltaWouldHaveRead)));
    delta.put(Kind.DELETE, new Cell("retryable on a fragment we read or touched",
        "rows we read, updated or deleted may be gone", retryIf(ConflictResolver::touchesDeltaFragments)));
    delta.put(Kind.UPDATE, new Cell("retryable on a fragment we read or touched, or if serializable and it wrote a column our filter read",
        "rows we read changed (our rewritten rows would undo its cells), or a row we did not read may now match",
        retryIf(ConflictResolver::changedDeltaInputs)));
    delta.put(Kind.ADD_COLUMNS, new Cell("retryable if we add rows", "our new fragments would lack the columns just added",
        retryIf((o, t) -> ((Operation.RowDelta) o).inserts())));
    delta.put(Kind.PROJECT, new Cell("retryable if it dropped a field we read or write, or made non-nullable one we write",
        "our filter or rows name a dropped field, or hold nulls in a non-nullable one",
        retryIf(ConflictResolver::projectionHitsWrites)));
    delta.put(Kind.REPLACE_DATA, new Cell("retryable on a fragment we read or touched, or if serializable and it replaced a column our filter read",
        "rows we read changed, or a row we did not read may now match", retryIf(ConflictResolver::changedDeltaInputs)));
    delta.put(Kind.REWRITE, new Cell("retryable on a fragment we read or touched",
        "compaction moved the rows we address", retryIf(ConflictResolver::touchesDeltaFragments)));
    delta.put(Kind.UPDATE_CONFIG, new Cell("compatible", "configuration is independent of data", OK));
    delta.put(Kind.WRITE_COLUMNS, new Cell("retryable if it added columns while we add rows, or as against an update",
        "our new fragments would lack its columns, or rows we read changed",
        retryIf((o, t) -> (theyAddedColumns(o, t) && ((Operation.RowDelta) o).inserts()) || changedDeltaInputs(o, t))));
    delta.put(Kind.MERGE_INSERT, new Cell("retryable on a fragment we read or touched, or if serializable and it inserted or wrote rows we would have read",
        "rows we read changed, or serially we would have read its rows",
        retryIf((o, t) -> changedDeltaInputs(o, t) || deltaWouldHaveRead(o, t))));
    delta.put(Kind.ROW_DELTA, new Cell("retryable on a fragment we read or touched, or if serializable and its rows may match what we read",
        "rows we read changed, or serially we would have read its rows",
        retryIf((o, t) -> touchesDeltaFragments(o, t) || deltaWouldHaveRead(o, t))));
    // ... and every other kind against a committed row delta, as against an append plus a delete.
    append.put(Kind.ROW_DELTA, new Cell("compatible",
        "an append decides nothing from existing rows; the delta's deletions only touch existing fragments", OK));
    delete.put(Kind.ROW_DELTA, new Cell("retryable on a shared fragment",
        "our deletion file is no longer the fragment's, or rows our predicate read were rewritten",
        retryIf(ConflictResolver::overlap)));
    update.put(Kind.ROW_DELTA, new Cell("retryable if it rewrote rows in a shared fragment",
        "our cells would land on old versions of rows it rewrote", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    add.put(Kind.ROW_DELTA, new Cell("retryable if it added rows or wrote a field we read",
        "the new fragments would lack our columns, or our values were computed from rows it rewrote",
        retryIf((o, t) -> ((Operation.RowDelta) t).inserts()
            || !intersection(t.writtenFieldIds(), o.readFieldIds()).isEmpty())));
    project.put(Kind.ROW_DELTA, new Cell("retryable if we make non-nullable a field it wrote",
        "it may have written nulls we did not check", retryIf(ConflictResolver::ourTighteningMeetsTheirWrites)));
    replace.put(Kind.ROW_DELTA, new Cell("retryable if it rewrote rows in a shared fragment",
        "our replacement would hold old values of rows it rewrote", retryIf(ConflictResolver::theyChangedWhatWeUse)));
    rewrite.put(Kind.ROW_DELTA, new Cell("retryable on a shared fragment",
        "we would resurrect rows it deleted", retryIf(ConflictResolver::overlap)));
    merge.put(Kind.ROW_DELTA, new Cell("retryable if it touched a fragment we used, its rows may hold a key we insert, or we delete by source",
        "rows we matched changed, both would insert the key, or serially we would have deleted its rows",
        retryIf(ConflictResolver::deltaMeetsMerge)));

    // ---- scalar indices: they change no data, and a reader checks each segment's coverage against the
    // fragments' current state, so data commits and index commits never invalidate each other.
    Map<Kind, Cell> index = m.get(Kind.UPDATE_INDICES);
    for (Kind other : Kind.values()) {
      if (other != Kind.OVERWRITE && other != Kind.RESTORE) {
        index.put(other, new Cell("compatible", "a segment answers only for fragments still in the state it records;"
            + " readers scan the fragments it changed", OK));
      }
      m.get(other).put(Kind.UPDATE_INDICES, new Cell("compatible", "an index changes no data, schema or configuration",
          OK));
    }
    index.put(Kind.PROJECT, new Cell("incompatible if it dropped the indexed field", "the column to index is gone",
        (o, t) -> ((Operation.Project) t).droppedFieldIds().containsAll(o.readFieldIds()) && !o.readFieldIds().isEmpty()
            ? Outcome.INCOMPATIBLE : Outcome.COMPATIBLE));
    index.put(Kind.UPDATE_INDICES, new Cell("incompatible on the same index name, unless both optimize it",
        "both created, dropped or dropped and optimized the index (two optimizes add up)",
        (o, t) -> sameIndexClash(o, t) ? Outcome.INCOMPATIBLE : Outcome.COMPATIBLE));

    // ---- update config
    Map<Kind, Cell> config = m.get(Kind.UPDATE_CONFIG);
    for (Kind theirs : Kind.values()) {
      config.put(theirs, new Cell("compatible", "configuration is independent of data and schema", OK));
    }
    config.put(Kind.UPDATE_CONFIG, new Cell("retryable if a key collides", "both changed the same key",
        retryIf(ConflictResolver::configKeysCollide)));
    config.put(Kind.OVERWRITE, new Cell("retryable if a key collides", "the overwrite set the same key",
        retryIf(ConflictResolver::configKeysCollide)));
    config.put(Kind.RESTORE, new Cell("retryable if a key collides", "the restore reset the same key",
        retryIf(ConflictResolver::configKeysCollide)));
    return m;
  }

  /**
   * The matrix as Markdown — a grid of short verdicts, then every cell with its rule and reason — as it
   * appears in docs/conflict-matrix.md between the generated-section markers.
   */
  public static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| ours ↓ / theirs → |");
    for (Kind theirs : Kind.values()) {
      out.append(' ').append(theirs.label()).append(" |");
    }
    out.append("\n|---|");
    for (int i = 0; i < Kind.values().length; i++) {
      out.append("---|");
    }
    out.append('\n');
    for (Kind ours : Kind.values()) {
      out.append("| **").append(ours.label()).append("** |");
      for (Kind theirs : Kind.values()) {
        out.append(' ').append(shortVerdict(MATRIX.get(ours).get(theirs).verdict())).append(" |");
      }
      out.append('\n');
    }
    out.append("\n| ours | theirs (committed after our read version) | verdict | reason |\n|---|---|---|---|\n");
    for (Kind ours : Kind.values()) {
      for (Kind theirs : Kind.values()) {
        Cell cell = MATRIX.get(ours).get(theirs);
        out.append("| ").append(ours.label()).append(" | ").append(theirs.label()).append(" | ")
            .append(cell.verdict()).append(" | ").append(cell.reason()).append(" |\n");
      }
    }
    return out.toString();
  }

  private static String shortVerdict(String verdict) {
    if (verdict.equals("compatible")) {
      return "ok";
    }
    if (verdict.equals("incompatible")) {
      return "**X**";
    }
    if (verdict.equals("retryable")) {
      return "R";
    }
    if (verdict.startsWith("rebase")) {
      return "rebase*";
    }
    return "R*";
  }
}
