package io.quiver.flink.source;

import io.quiver.exceptions.UnsupportedFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** The versioned forms of a {@link QuiverSplit} and a {@link QuiverEnumeratorState} in Flink's checkpoints. */
final class Serializers {
  private Serializers() {}

  /** Version 1: the task's bytes ({@code ScanTask.encode()}, length first), then the rows emitted. */
  static final class SplitSerializer implements SimpleVersionedSerializer<QuiverSplit> {
    static final SplitSerializer INSTANCE = new SplitSerializer();

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(QuiverSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(split.encodedTask().length + 12);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        write(split, out);
      }
      return bytes.toByteArray();
    }

    @Override
    public QuiverSplit deserialize(int version, byte[] serialized) throws IOException {
      checkVersion("split", version);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return read(in);
      }
    }

    static void write(QuiverSplit split, DataOutputStream out) throws IOException {
      out.writeInt(split.encodedTask().length);
      out.write(split.encodedTask());
      out.writeLong(split.rowsEmitted());
    }

    static QuiverSplit read(DataInputStream in) throws IOException {
      byte[] task = new byte[in.readInt()];
      in.readFully(task);
      return new QuiverSplit(task, in.readLong());
    }
  }

  /** Version 1: the planned version, the number of unassigned splits, then each as {@link SplitSerializer}. */
  static final class StateSerializer implements SimpleVersionedSerializer<QuiverEnumeratorState> {
    static final StateSerializer INSTANCE = new StateSerializer();

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(QuiverEnumeratorState state) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeLong(state.plannedVersion());
        out.writeInt(state.unassigned().size());
        for (QuiverSplit split : state.unassigned()) {
          SplitSerializer.write(split, out);
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public QuiverEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
      checkVersion("enumerator state", version);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        long planned = in.readLong();
        int count = in.readInt();
        List<QuiverSplit> splits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          splits.add(SplitSerializer.read(in));
        }
        return new QuiverEnumeratorState(splits, planned);
      }
    }
  }

  private static void checkVersion(String what, int version) {
    if (version != 1) {
      throw new UnsupportedFormatException("a Quiver source " + what + " of serializer version "
          + version + " cannot be read by this connector, which reads version 1; restore the job with the"
          + " connector version that took the checkpoint, or start the source afresh");
    }
  }
}
