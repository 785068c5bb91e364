package io.quiver.flink.sink;

/** {@link QuiverSinkCases} on the local store. */
class QuiverSinkTest extends QuiverSinkCases {
  @Override
  SinkStore store() {
    return SinkStore.local(dir);
  }
}
