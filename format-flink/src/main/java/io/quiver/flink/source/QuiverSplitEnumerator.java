package io.quiver.flink.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Plans a Quiver source's splits and hands them to readers as they ask. It plans the start version on its
 * worker thread when it starts (unless restored with it planned); a bounded source then tells each reader
 * that asks when none is left that there are no more splits. A continuous source looks for new versions every
 * discovery interval ({@link Planner#discover()}) and keeps readers that asked waiting for the next splits.
 *
 * <p>Its checkpoint holds the splits not yet assigned and the last version planned; the splits a reader holds
 * are in that reader's checkpoint (and handed back here by Flink when the reader fails before it checkpoints).
 */
final class QuiverSplitEnumerator implements SplitEnumerator<QuiverSplit, QuiverEnumeratorState> {
  private final SplitEnumeratorContext<QuiverSplit> context;
  private final SourceConfig config;
  private final Planner planner;
  private final ArrayDeque<QuiverSplit> unassigned = new ArrayDeque<>();
  private final Set<Integer> waiting = new LinkedHashSet<>();
  private long plannedVersion;

  QuiverSplitEnumerator(SplitEnumeratorContext<QuiverSplit> context, SourceConfig config,
      QuiverEnumeratorState restored) {
    this.context = context;
    this.config = config;
    this.planner = new Planner(config);
    SourceMetrics.register(context.metricGroup(), planner.metrics);
    this.plannedVersion = restored == null ? -1 : restored.plannedVersion();
    if (restored != null) {
      unassigned.addAll(restored.unassigned());
    }
  }

  @Override
  public void start() {
    if (plannedVersion < 0) {
      context.callAsync(() -> planner.planAll(config.version()), this::planned);
    } else if (config.continuous()) {
      discoverFrom(plannedVersion);
    }
  }

  private void planned(List<QuiverSplit> splits, Throwable error) {
    if (error != null) {
      throw failure(error);
    }
    unassigned.addAll(splits);
    plannedVersion = config.version();
    assignWaiting();
    if (config.continuous()) {
      discoverFrom(plannedVersion);
    }
  }

  private void discoverFrom(long version) {
    planner.resumeAfter(version);
    context.callAsync(planner::discover, this::discovered, config.discoveryMillis(), config.discoveryMillis());
  }

  private void discovered(Planner.Discovery discovery, Throwable error) {
    if (error != null) {
      throw failure(error);
    }
    if (discovery.through() > plannedVersion) {
      unassigned.addAll(discovery.splits());
      plannedVersion = discovery.through();
      assignWaiting();
    }
  }

  private static RuntimeException failure(Throwable error) {
    return error instanceof RuntimeException r ? r : new IllegalStateException(error);
  }

  @Override
  public void handleSplitRequest(int subtask, String requesterHostname) {
    waiting.add(subtask);
    assignWaiting();
  }

  private void assignWaiting() {
    Iterator<Integer> it = waiting.iterator();
    while (it.hasNext()) {
      int subtask = it.next();
      if (!context.registeredReaders().containsKey(subtask)) {
        it.remove(); // failed since it asked; it asks again when it is back
      } else if (config.changelog() && subtask != 0) {
        // A changelog is read in order, one split after another, by subtask 0 alone; the others stay idle.
        continue;
      } else if (!unassigned.isEmpty()) {
        context.assignSplit(unassigned.poll(), subtask);
        it.remove();
      } else if (!config.continuous() && plannedVersion >= 0) {
        context.signalNoMoreSplits(subtask);
        it.remove();
      } else {
        return; // the next plan or discovery assigns
      }
    }
  }

  @Override
  public void addSplitsBack(List<QuiverSplit> splits, int subtask) {
    List<QuiverSplit> back = new ArrayList<>(splits);
    for (int i = back.size() - 1; i >= 0; i--) {
      unassigned.addFirst(back.get(i));
    }
    assignWaiting();
  }

  @Override
  public void addReader(int subtask) {
    // Readers ask for splits themselves.
  }

  @Override
  public QuiverEnumeratorState snapshotState(long checkpointId) {
    return new QuiverEnumeratorState(List.copyOf(unassigned), plannedVersion);
  }

  @Override
  public void close() {
    planner.close();
  }
}
