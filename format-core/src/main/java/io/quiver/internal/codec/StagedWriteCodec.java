package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.txn.Operation;
import java.nio.charset.StandardCharsets;

/**
 * Bytes of a staged column write, as a worker hands it to a coordinator: the metadata envelope (magic
 * {@code QVS1}, CRC-32C, payload) around a {@code quiver.v1.StagedColumnWrite} protobuf. Deterministic:
 * equal values encode to equal bytes. The write's input witness ({@code ColumnWrite.inputs}) is only
 * emitted when the write declared inputs, so a write without any encodes exactly as before inputs existed,
 * and bytes from that code decode to a write bound to its written fields only.
 */
public final class StagedWriteCodec {
  private static final byte[] MAGIC = "QVS1".getBytes(StandardCharsets.US_ASCII);
  private static final String WHAT = "staged column write";

  private StagedWriteCodec() {}

  /** A decoded staged write: the table it belongs to, the version it was prepared at, and the write. */
  public record Decoded(String tableLocation, long readVersion, Operation.ColumnWrite write) {}

  /** Encodes a staged write. */
  public static byte[] encode(String tableLocation, long readVersion, Operation.ColumnWrite write) {
    io.quiver.internal.proto.StagedColumnWrite proto =
        io.quiver.internal.proto.StagedColumnWrite.newBuilder()
            .setTableLocation(tableLocation)
            .setReadVersion(readVersion)
            .setWrite(MetadataCodec.encode(write))
            .build();
    return MetadataCodec.envelope(MAGIC, MetadataCodec.deterministic(proto));
  }

  /**
   * Decodes bytes from {@link #encode}.
   *
   * @throws CorruptFileException if the bytes are truncated, damaged, not a staged write, or describe an
   *     invalid one
   */
  public static Decoded decode(byte[] bytes) {
    if (bytes == null) {
      throw new CorruptFileException(WHAT, "no bytes (null) to decode; pass the bytes StagedColumnWrite.encode() returned");
    }
    byte[] payload = MetadataCodec.open(MAGIC, bytes, WHAT, WHAT);
    try {
      io.quiver.internal.proto.StagedColumnWrite proto = io.quiver.internal.proto.StagedColumnWrite.parseFrom(payload);
      if (!proto.hasWrite()) {
        throw new IllegalArgumentException("the staged column write holds no write");
      }
      return new Decoded(proto.getTableLocation(), proto.getReadVersion(), MetadataCodec.decode(proto.getWrite()));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(WHAT, "payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(WHAT, "invalid staged column write: " + e.getMessage(), e);
    }
  }
}
