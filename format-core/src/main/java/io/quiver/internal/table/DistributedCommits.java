package io.quiver.internal.table;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Turns workers' write results into one operation, after checking them against the table. */
final public class DistributedCommits {
  private DistributedCommits() {}

  /** The smallest read version of the results (the commit's read version). */
  static public long readVersion(List<WriteResult> results) {
    return results.stream().mapToLong(WriteResult::readVersion).min().orElseThrow();
  }

  /**
   * The manifest to check and build the results' commit on: that of their read version {@code read}
   * ({@code current} when it is that version). When a cleanup removed it, the latest version instead, if
   * either the commit's idempotence key is in its ledger (the commit loop then reports the earlier commit,
   * or the key conflict) or the commit is an append shown safe across the removed versions ({@link
   * Idempotence#appendCannotSkip}).
   *
   * @throws StaleReadVersionException otherwise: the results cannot be checked against the commits made since
   */
  static public Manifest base(TableIo io, Manifest current, long read, List<WriteResult> results, WriteMode mode,
      CommitOptions commitOptions) {
    if (read == current.version()) {
      return current;
    }
    Optional<io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction> loaded = io.tryLoad(read);
    if (loaded.isPresent()) {
      return loaded.get().manifest();
    }
    List<Long> versions = io.commitStore().listVersions(Integer.MAX_VALUE);
    if (versions.isEmpty()) {
      throw new io.quiver.exceptions.TableNotFoundException("no Quiver table at " + io.location() + " (no committed version)");
    }
    long oldest = versions.get(versions.size() - 1);
    Manifest latest = io.load(versions.get(0)).manifest();
    Optional<String> key = commitOptions.idempotenceKey();
    if (key.isPresent() && latest.ledger().flatMap(l -> l.find(key.get())).isPresent()) {
      return latest;
    }
    boolean tracked = key.isPresent() || commitOptions.applicationSequence().isPresent();
    Optional<String> why = mode == WriteMode.APPEND
        ? Idempotence.appendCannotSkip(new Operation.Append(fragments(results)), read, tracked,
            results.get(0).schema(), latest)
        : Optional.of("an overwrite must be checked against every commit since its read version");
    if (why.isEmpty()) {
      return latest;
    }
    throw new StaleReadVersionException(read, oldest,
        "the write results were written at version " + read + " of " + io.location() + ", which a cleanup"
            + " removed (the oldest version is " + oldest + "), so the commits made since cannot be checked"
            + " against them (" + why.get() + "). Nothing was committed."
            + (key.isPresent() ? " The idempotence key '" + key.get() + "' is not in the latest version's ledger; "
                + "findCommit(key, " + read + ") tells whether an earlier attempt may have committed." : "")
            + " Rewrite the data at the latest version, and keep the cleanup retention longer than a job's"
            + " recovery time.");
  }

  /**
   * The operation publishing {@code results} in {@code mode}, read at {@code base} (the results' smallest
   * read version).
   */
  static public Operation operation(TableIo io, Manifest base, List<WriteResult> results, WriteMode mode) {
    if (mode == null) {
      throw new InvalidArgumentException("write mode must not be null; use WriteMode.APPEND or WriteMode.OVERWRITE");
    }
    List<Fragment> fragments = fragments(results);
    for (int i = 0; i < results.size(); i++) {
      checkResult(io, i, results.get(i), base);
    }
    if (mode == WriteMode.APPEND) {
      return new Operation.Append(fragments);
    }
    return new Operation.Overwrite(base.schema(), fragments, Map.of());
  }

  /**
   * Checks that result {@code i} belongs to this table and was written with {@code base}'s schema.
   *
   * @throws InvalidArgumentException for a result of another table
   * @throws SchemaMismatchException for another schema contract
   */
  static public void checkResult(TableIo io, int i, WriteResult r, Manifest base) {
    if (!r.tableLocation().equals(io.location())) {
      throw new InvalidArgumentException(
          "write result " + i + " belongs to table " + r.tableLocation() + ", not " + io.location()
              + "; commit results on the table their workers wrote to");
    }
    if (!r.schema().equals(base.schema())) {
      throw new SchemaMismatchException(
          "write result " + i + " (read at version " + r.readVersion() + ") was written with schema "
              + r.schema().toArrow() + " but the table's schema at version " + base.version() + " is "
              + base.schema().toArrow() + "; workers of one commit must write with the same schema contract."
              + " Nothing was committed: rewrite the data with writers opened at one version.");
    }
  }

  private static void checkLocations(TableIo io, List<WriteResult> results) {
    for (int i = 0; i < results.size(); i++) {
      WriteResult r = results.get(i);
      if (!r.tableLocation().equals(io.location())) {
        throw new InvalidArgumentException(
            "write result " + i + " belongs to table " + r.tableLocation() + ", not " + io.location()
                + "; commit results on the table their workers wrote to");
      }
    }
  }

  /**
   * The append of {@code results} under {@link io.quiver.dataset.SchemaPolicy#ALLOW_ADDED_NULLABLE_FIELDS},
   * to be built and checked on {@code latest} (the latest version): the results may carry older schema
   * contracts, each compatible with the latest schema ({@link #checkAddedNullableFields}); their read
   * versions may be gone. Refused when an overwrite or restore replaced the table after the results'
   * smallest read version {@code read}, or when the latest ledger cannot vouch that a tracked (keyed or
   * sequenced) commit was not made earlier.
   *
   * @throws SchemaMismatchException if a result's contract is not compatible with the latest schema
   * @throws io.quiver.exceptions.IncompatibleTransactionException if the table was replaced since, or the
   *     ledger cannot show the commits since {@code read} (the message says which)
   */
  static public Operation.Append appendOnLatest(TableIo io, Manifest latest, long read, List<WriteResult> results,
      CommitOptions commitOptions) {
    List<Fragment> fragments = fragments(results);
    checkLocations(io, results);
    for (int i = 0; i < results.size(); i++) {
      checkAddedNullableFields(i, results.get(i), latest);
    }
    boolean tracked = commitOptions.idempotenceKey().isPresent() || commitOptions.applicationSequence().isPresent();
    Optional<String> why = Idempotence.appendCannotSkip(read, tracked, Optional.empty(), latest);
    if (why.isPresent()) {
      throw new io.quiver.exceptions.IncompatibleTransactionException(
          "the write results (smallest read version " + read + ") cannot be appended to version "
              + latest.version() + " of " + io.location() + ": " + why.get() + ". Nothing was committed."
              + " Rewrite the data with writers opened at the latest version.");
    }
    return new Operation.Append(fragments);
  }

  /**
   * Checks that {@code result}'s schema contract can be appended to {@code latest}: every field it wrote
   * exists there with the same id, parent and type, and is nullable there if it was nullable when written;
   * every field added since is nullable or inside an added field.
   *
   * @throws SchemaMismatchException naming the first field that is not, and what to do
   */
  static void checkAddedNullableFields(int index, WriteResult result, Manifest latest) {
    io.quiver.schema.Schema written = result.schema();
    io.quiver.schema.Schema now = latest.schema();
    String which = "write result " + index + " (written at version " + result.readVersion() + ")";
    String fix = " Nothing was committed: write the rows again with a writer at the latest version ("
        + "DistributedWriter.open, or refresh()), or change the table's schema back.";
    for (io.quiver.schema.Field f : written.allFields()) {
      String path = written.pathOf(f.id());
      Optional<io.quiver.schema.Field> found = now.findField(f.id());
      if (found.isEmpty()) {
        throw new SchemaMismatchException(which + " holds field '" + path + "' (id " + f.id() + "), which the"
            + " table's schema at version " + latest.version() + " no longer has (it was dropped)." + fix);
      }
      io.quiver.schema.Field g = found.get();
      if (g.parentId() != f.parentId()) {
        throw new SchemaMismatchException(which + " holds field '" + path + "' (id " + f.id() + ") under parent "
            + f.parentId() + ", but at version " + latest.version() + " it is under parent " + g.parentId() + "."
            + fix);
      }
      if (!g.type().equals(f.type())) {
        throw new SchemaMismatchException(which + " wrote field '" + path + "' (id " + f.id() + ") as " + f.type()
            + ", but at version " + latest.version() + " its type is " + g.type() + "." + fix);
      }
      if (f.nullable() && !g.nullable()) {
        throw new SchemaMismatchException(which + " wrote field '" + path + "' (id " + f.id() + ") as nullable,"
            + " but at version " + latest.version() + " it is NOT NULL: the rows may hold nulls there." + fix);
      }
    }
    for (io.quiver.schema.Field g : now.allFields()) {
      boolean added = written.findField(g.id()).isEmpty();
      boolean parentAdded = g.parentId() >= 0 && written.findField(g.parentId()).isEmpty();
      if (added && !g.nullable() && !parentAdded) {
        throw new SchemaMismatchException("field '" + now.pathOf(g.id()) + "' (id " + g.id() + ") was added as NOT"
            + " NULL after " + which + " was written: its rows have no values for it." + fix);
      }
    }
  }

  static public List<Fragment> fragments(List<WriteResult> results) {
    if (results == null || results.isEmpty()) {
      throw new InvalidArgumentException("no write results to commit; pass the results every worker returned");
    }
    List<Fragment> fragments = new ArrayList<>();
    for (WriteResult r : results) {
      if (r == null) {
        throw new InvalidArgumentException("a write result is null");
      }
      fragments.addAll(r.fragments());
    }
    return fragments;
  }
}
