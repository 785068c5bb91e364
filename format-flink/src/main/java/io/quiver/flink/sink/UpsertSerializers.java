package io.quiver.flink.sink;

import io.quiver.dataset.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * {@link UpsertResult}s and {@link UpsertCommittable}s in Flink's state, version 2. A result: whether it has
 * rows, their {@link WriteResult#encode()} with its length, the key bytes with their length, the two counts, and
 * whether the keys list the upserted keys first in row order. Version 1 is the same without the last field (read
 * as false).
 * A committable: job id, uid, checkpoint id, the number of results, each result as above.
 */
final class UpsertSerializers {
  private UpsertSerializers() {}

  static final int VERSION = 2;

  static final class Results implements SimpleVersionedSerializer<UpsertResult> {
    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(UpsertResult r) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        write(r, out);
      }
      return bytes.toByteArray();
    }

    @Override
    public UpsertResult deserialize(int version, byte[] serialized) throws IOException {
      checkVersion("upsert result", version);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return read(in, serialized.length, version);
      }
    }
  }

  static final class Committables implements SimpleVersionedSerializer<UpsertCommittable> {
    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(UpsertCommittable c) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(c.jobId());
        out.writeUTF(c.operatorUid());
        out.writeLong(c.checkpointId());
        out.writeInt(c.results().size());
        for (UpsertResult r : c.results()) {
          write(r, out);
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public UpsertCommittable deserialize(int version, byte[] serialized) throws IOException {
      checkVersion("upsert committable", version);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        String jobId = in.readUTF();
        String uid = in.readUTF();
        long checkpoint = in.readLong();
        int n = length(in.readInt(), serialized.length, "results");
        List<UpsertResult> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          results.add(read(in, serialized.length, version));
        }
        return new UpsertCommittable(jobId, uid, checkpoint, results);
      }
    }
  }

  private static void write(UpsertResult r, DataOutputStream out) throws IOException {
    out.writeBoolean(r.rows().isPresent());
    if (r.rows().isPresent()) {
      byte[] encoded = r.rows().get().encode();
      out.writeInt(encoded.length);
      out.write(encoded);
    }
    out.writeInt(r.keys().length);
    out.write(r.keys());
    out.writeLong(r.upserts());
    out.writeLong(r.deletes());
    out.writeBoolean(r.rowKeysFirst());
  }

  private static void checkVersion(String what, int version) {
    if (version != 1) {
      QuiverCommittableSerializer.checkVersion(what, version, VERSION);
    }
  }

  private static UpsertResult read(DataInputStream in, int total, int version) throws IOException {
    Optional<WriteResult> rows = Optional.empty();
    if (in.readBoolean()) {
      byte[] encoded = new byte[length(in.readInt(), total, "bytes of rows")];
      in.readFully(encoded);
      rows = Optional.of(WriteResult.decode(encoded));
    }
    byte[] keys = new byte[length(in.readInt(), total, "bytes of keys")];
    in.readFully(keys);
    long upserts = in.readLong();
    long deletes = in.readLong();
    return new UpsertResult(rows, keys, upserts, deletes, version >= 2 && in.readBoolean());
  }

  private static int length(int n, int total, String what) throws IOException {
    if (n < 0 || n > total) {
      throw new IOException("a Quiver upsert state entry claims " + n + " " + what + " in " + total
          + " bytes: the state is damaged");
    }
    return n;
  }
}
