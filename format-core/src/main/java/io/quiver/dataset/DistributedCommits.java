package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.txn.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns workers' write results into one operation, after checking them against the table. */
final class DistributedCommits {
  private DistributedCommits() {}

  /** The smallest read version of the results (the commit's read version). */
  static long readVersion(List<WriteResult> results) {
    return results.stream().mapToLong(WriteResult::readVersion).min().orElseThrow();
  }

  /**
   * The manifest of the results' read version {@code read} ({@code current} when it is that version).
   *
   * @throws StaleReadVersionException if a cleanup removed it: the results cannot be checked against the
   *     commits made since
   */
  static Manifest base(TableIo io, Manifest current, long read) {
    if (read == current.version()) {
      return current;
    }
    try {
      return io.load(read).manifest();
    } catch (VersionNotFoundException e) {
      List<Long> versions = io.commitStore().listVersions(Integer.MAX_VALUE);
      long oldest = versions.isEmpty() ? 0 : versions.get(versions.size() - 1);
      throw new StaleReadVersionException(read, oldest,
          "the write results were written at version " + read + " of " + io.location() + ", which a cleanup"
              + " removed (the oldest version is " + oldest + "), so the commits made since cannot be checked"
              + " against them. Nothing was committed. If an earlier attempt may have committed them, look its"
              + " idempotence key up with findCommit; otherwise rewrite the data at the latest version, and keep"
              + " the cleanup retention longer than a job's recovery time.");
    }
  }

  /**
   * The operation publishing {@code results} in {@code mode}, read at {@code base} (the results' smallest
   * read version).
   */
  static Operation operation(TableIo io, Manifest base, List<WriteResult> results, WriteMode mode) {
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

  static List<Fragment> fragments(List<WriteResult> results) {
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
