package io.quiver.flink.source;

import java.util.List;

/**
 * What a Quiver source's enumerator checkpoints: the splits planned but not yet assigned to a reader, and the
 * last version whose rows are all planned ({@code -1} before the first plan). A continuous source restored
 * from it discovers the versions after {@link #plannedVersion()}.
 *
 * @param unassigned splits planned, not yet assigned (splits a reader holds are in the reader's state)
 * @param plannedVersion the newest version whose rows are all in splits; {@code -1} when nothing is planned yet
 */
public record QuiverEnumeratorState(List<QuiverSplit> unassigned, long plannedVersion) {
  public QuiverEnumeratorState {
    unassigned = List.copyOf(unassigned);
  }
}
