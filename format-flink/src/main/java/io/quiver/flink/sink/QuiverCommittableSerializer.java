package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * {@link QuiverCommittable}s in Flink's state, version 1: job id, operator uid (UTF), checkpoint id, the
 * number of results, and each result's own encoding ({@link WriteResult#encode()}) with its length.
 */
final class QuiverCommittableSerializer implements SimpleVersionedSerializer<QuiverCommittable> {
  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(QuiverCommittable c) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(c.jobId());
      out.writeUTF(c.operatorUid());
      out.writeLong(c.checkpointId());
      out.writeInt(c.results().size());
      for (WriteResult r : c.results()) {
        byte[] encoded = r.encode();
        out.writeInt(encoded.length);
        out.write(encoded);
      }
    }
    return bytes.toByteArray();
  }

  @Override
  public QuiverCommittable deserialize(int version, byte[] serialized) throws IOException {
    checkVersion("committable", version, VERSION);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      String jobId = in.readUTF();
      String uid = in.readUTF();
      long checkpoint = in.readLong();
      int n = in.readInt();
      if (n < 0 || n > serialized.length) {
        throw new IOException("a Quiver committable claims " + n + " write results in " + serialized.length
            + " bytes: the state is damaged");
      }
      List<WriteResult> results = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] encoded = new byte[in.readInt()];
        in.readFully(encoded);
        results.add(WriteResult.decode(encoded));
      }
      return new QuiverCommittable(jobId, uid, checkpoint, results);
    }
  }

  static void checkVersion(String what, int version, int supported) {
    if (version != supported) {
      throw new io.quiver.exceptions.UnsupportedFormatException("a Quiver sink " + what + " in Flink state has"
          + " serializer version " + version + ", but this connector reads version " + supported + " only;"
          + " restore the job with the connector version that wrote the state");
    }
  }
}
