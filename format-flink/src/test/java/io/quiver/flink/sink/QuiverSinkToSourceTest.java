package io.quiver.flink.sink;

/** {@link QuiverSinkToSourceCases} on the local store. */
class QuiverSinkToSourceTest extends QuiverSinkToSourceCases {
  @Override
  SinkStore store() {
    return SinkStore.local(dir);
  }
}
