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

  /**
   * Version 2: the task's bytes ({@code ScanTask.encode()}, length first; none for a change split), the rows
   * emitted, then the version whose changes a change split reads ({@link QuiverSplit#NO_CHANGES} for a task).
   * Version 1 (before change splits) is the same without the last field, and still read.
   */
  static final class SplitSerializer implements SimpleVersionedSerializer<QuiverSplit> {
    static final SplitSerializer INSTANCE = new SplitSerializer();

    @Override
    public int getVersion() {
      return 2;
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
        return read(in, version);
      }
    }

    static void write(QuiverSplit split, DataOutputStream out) throws IOException {
      out.writeInt(split.encodedTask().length);
      out.write(split.encodedTask());
      out.writeLong(split.rowsEmitted());
      out.writeLong(split.isChanges() ? split.changesOf() : QuiverSplit.NO_CHANGES);
    }

    static QuiverSplit read(DataInputStream in, int version) throws IOException {
      byte[] task = new byte[in.readInt()];
      in.readFully(task);
      long emitted = in.readLong();
      long changesOf = version >= 2 ? in.readLong() : QuiverSplit.NO_CHANGES;
      return changesOf == QuiverSplit.NO_CHANGES ? new QuiverSplit(task, emitted) : QuiverSplit.changes(changesOf, emitted);
    }
  }

  /**
   * Version 2: the planned version, the number of unassigned splits, then each as {@link SplitSerializer}'s version
   * 2. Version 1 holds splits of its version 1, and is still read.
   */
  static final class StateSerializer implements SimpleVersionedSerializer<QuiverEnumeratorState> {
    static final StateSerializer INSTANCE = new StateSerializer();

    @Override
    public int getVersion() {
      return 2;
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
          splits.add(SplitSerializer.read(in, version));
        }
        return new QuiverEnumeratorState(splits, planned);
      }
    }
  }

  private static void checkVersion(String what, int version) {
    if (version != 1 && version != 2) {
      throw new UnsupportedFormatException("a Quiver source " + what + " of serializer version "
          + version + " cannot be read by this connector, which reads versions 1 and 2; restore the job with the"
          + " connector version that took the checkpoint, or start the source afresh");
    }
  }
}
