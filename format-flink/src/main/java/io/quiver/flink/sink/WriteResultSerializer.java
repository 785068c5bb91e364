package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** A writer's {@link WriteResult} as its own encoding ({@link WriteResult#encode()}, checksummed), version 1. */
final class WriteResultSerializer implements SimpleVersionedSerializer<WriteResult> {
  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(WriteResult result) {
    return result.encode();
  }

  @Override
  public WriteResult deserialize(int version, byte[] serialized) {
    QuiverCommittableSerializer.checkVersion("write result", version, VERSION);
    return WriteResult.decode(serialized);
  }
}
