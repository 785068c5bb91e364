package io.quiver.flink.source;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.ScanTask;
import io.quiver.dataset.VersionInfo;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.manifest.Fragment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The enumerator's planning, run on its worker thread: the splits of one version, and — for a continuous
 * source — the splits of the versions committed since the last one planned.
 *
 * <p>Following a table: each version after the last planned one is looked at in order. An {@code append}
 * gives the splits of the fragments it added (the scan tasks planned at that version whose fragment was not in
 * the version before), so each appended row is read once, at the version that appended it — which is what makes
 * a later compaction safe. Versions that add no rows and change none the source emitted are skipped: {@code
 * update-config}, {@code add-columns}, {@code rewrite} (compaction: its fragments hold rows already planned), and
 * {@code project} when every column the source reads is still there. Any other operation fails the source with a
 * {@link QuiverSourceException} naming the table, the version and the operation. A changelog source instead gives
 * each later version one change split (its changes, of every kind), and skips the versions that change no row.
 */
final class Planner implements AutoCloseable {
  private final SourceConfig config;
  private Dataset dataset;
  /** The newest version discovered (its splits handed to the enumerator thread). */
  private long cursor = -1;
  /** Fragment ids at {@link #knownAt}. */
  private Set<Long> knownFragments;
  private long knownAt = -1;
  /**
   * Set by {@link #close()}. Flink closes the enumerator before it stops the worker thread that runs the
   * periodic discovery, so a discovery may still run after close: it must not open the table again (nothing
   * would close it).
   */
  private boolean closed;

  /** What planning did (fragments considered and pruned by the statistics, tasks planned). */
  final io.quiver.dataset.ScanMetrics metrics = new io.quiver.dataset.ScanMetrics();

  Planner(SourceConfig config) {
    this.config = config;
  }

  private Dataset dataset() {
    if (dataset == null) {
      dataset = Dataset.open(config.uri(), config.datasetOptions(), config.version());
    }
    return dataset;
  }

  /** Every split of {@code version}. */
  synchronized List<QuiverSplit> planAll(long version) {
    if (closed) {
      return List.of(); // see discover()
    }
    try (Dataset at = dataset().checkout(version)) {
      List<QuiverSplit> splits = new ArrayList<>();
      for (ScanTask task : config.configure(at.newScan().metrics(metrics)).planTasks()) {
        splits.add(new QuiverSplit(task, 0));
      }
      remember(at);
      return splits;
    }
  }

  /** Discovery goes on after {@code version} (all of whose rows are planned). */
  synchronized void resumeAfter(long version) {
    cursor = version;
  }

  /** The splits committed after the last version discovered, through the latest version. */
  synchronized Discovery discover() {
    if (closed) {
      return new Discovery(cursor, List.of()); // the enumerator is gone; nobody takes these splits
    }
    long latest = dataset().latestVersion();
    List<QuiverSplit> splits = new ArrayList<>();
    for (long v = cursor + 1; v <= latest; v++) {
      splits.addAll(follow(v, latest));
    }
    cursor = Math.max(cursor, latest);
    return new Discovery(cursor, splits);
  }

  /** The result of one discovery: the splits of the versions through {@code through}. */
  record Discovery(long through, List<QuiverSplit> splits) {}

  private List<QuiverSplit> follow(long v, long latest) {
    VersionInfo info;
    try {
      info = dataset().versionInfo(v);
    } catch (VersionNotFoundException e) {
      throw removed(v, latest, e);
    }
    if (config.changelog()) {
      return changesOf(v, latest, info);
    }
    Set<Long> before = fragmentsAt(v - 1, latest);
    try (Dataset at = checkout(v, latest)) {
      switch (info.operation()) {
        case "append": {
          List<QuiverSplit> splits = new ArrayList<>();
          for (ScanTask task : config.configure(at.newScan().metrics(metrics)).planTasks()) {
            if (!before.contains(task.fragmentId())) {
              splits.add(new QuiverSplit(task, 0));
            }
          }
          remember(at);
          return splits;
        }
        case "update-config":
        case "add-columns":
        case "rewrite":
          remember(at);
          return List.of();
        case "project": {
          List<String> gone = config.columns().stream().filter(c -> at.schema().findField(c).isEmpty()).toList();
          if (gone.isEmpty()) {
            remember(at);
            return List.of();
          }
          throw unsupported(v, info.operation(), "drops or renames " + gone + ", which the source reads");
        }
        default:
          throw unsupported(v, info.operation(), "changes or removes rows the source may already have emitted");
      }
    }
  }

  /**
   * A changelog source's split of version {@code v}: its changes, read from the change feed (none for a version
   * that changes no row: a configuration change, an index or a compaction).
   */
  private List<QuiverSplit> changesOf(long v, long latest, VersionInfo info) {
    if (info.operation().equals("update-config") || info.operation().equals("rewrite")
        || info.operation().endsWith("-index")) {
      return List.of();
    }
    try (Dataset at = checkout(v, latest)) {
      List<String> gone = config.columns().stream().filter(c -> at.schema().findField(c).isEmpty()).toList();
      if (!gone.isEmpty()) {
        throw unsupported(v, info.operation(), "drops or renames " + gone + ", which the source reads");
      }
    }
    return List.of(QuiverSplit.changes(v, 0));
  }

  private Dataset checkout(long v, long latest) {
    try {
      return dataset().checkout(v);
    } catch (VersionNotFoundException e) {
      throw removed(v, latest, e);
    }
  }

  private Set<Long> fragmentsAt(long v, long latest) {
    if (knownAt != v) {
      try (Dataset at = checkout(v, latest)) {
        remember(at);
      }
    }
    return knownFragments;
  }

  private void remember(Dataset at) {
    Set<Long> ids = new HashSet<>();
    for (Fragment f : at.manifest().fragments()) {
      ids.add(f.id());
    }
    knownFragments = ids;
    knownAt = at.version();
  }

  private QuiverSourceException unsupported(long v, String operation, String what) {
    return new QuiverSourceException(v, operation, "the continuous Quiver source on table " + config.uri()
        + " cannot follow version " + v + ": it committed '" + operation + "', which " + what + ". A continuous"
        + " source follows appends, and skips versions that add no rows (update-config, add-columns, rewrite by"
        + " compaction, and column drops of columns it does not read). It has planned every row through version "
        + (v - 1) + ". To go on, start a new source: a bounded read of version " + v
        + " (QuiverSource.forRowData(uri).version(" + v + ")), or a continuous one from version " + v
        + " or from the latest version (which reads that version's rows first).", null);
  }

  private QuiverSourceException removed(long v, long latest, VersionNotFoundException cause) {
    return new QuiverSourceException(v, null, "the continuous Quiver source on table " + config.uri()
        + " cannot read version " + v + ": it no longer exists (the latest version is " + latest + "). A cleanup"
        + " removed it before the source read it; the source had planned every row through version " + (v - 1)
        + ". Cleanup removes the versions older than its olderThan retention that are neither the latest nor"
        + " tagged: run it with an olderThan longer than the source can lag behind, or tag the versions the source"
        + " still has to read. To go on, start the source again from the latest version (version(" + latest
        + ")).", cause);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (dataset != null) {
      dataset.close();
      dataset = null;
    }
  }
}
