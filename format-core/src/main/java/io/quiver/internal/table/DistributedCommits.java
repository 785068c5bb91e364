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
      WriteResult r = results.get(i);
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
    if (mode == WriteMode.APPEND) {
      return new Operation.Append(fragments);
    }
    return new Operation.Overwrite(base.schema(), fragments, Map.of());
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
