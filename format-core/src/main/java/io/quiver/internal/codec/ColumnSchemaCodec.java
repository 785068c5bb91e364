package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;

/**
 * Bytes of the column schema of a staged column write, as a driver ships it to workers: the metadata
 * envelope (magic {@code QVK1}, CRC-32C, payload) around a {@code quiver.v1.ColumnSchema} protobuf
 * (staged.proto). Deterministic: equal values encode to equal bytes.
 */
public final class ColumnSchemaCodec {
  private static final byte[] MAGIC = "QVK1".getBytes(StandardCharsets.US_ASCII);
  private static final String WHAT = "column schema";

  private ColumnSchemaCodec() {}

  /** The fields of a column schema, as encoded. */
  public record Decoded(String tableLocation, long readVersion, Schema contract, Set<Integer> newFieldIds,
      Schema inputs) {}

  public static byte[] encode(Decoded s) {
    io.quiver.internal.proto.ColumnSchema proto = io.quiver.internal.proto.ColumnSchema.newBuilder()
        .setTableLocation(s.tableLocation())
        .setReadVersion(s.readVersion())
        .setContract(SchemaCodec.encode(s.contract()))
        .addAllNewFieldIds(new TreeSet<>(s.newFieldIds()))
        .setInputs(SchemaCodec.encode(s.inputs()))
        .build();
    return MetadataCodec.envelope(MAGIC, MetadataCodec.deterministic(proto));
  }

  /**
   * Decodes bytes from {@link #encode}.
   *
   * @throws CorruptFileException if the bytes are null, truncated, damaged, not a column schema, or describe
   *     an invalid one
   */
  public static Decoded decode(byte[] bytes) {
    if (bytes == null) {
      throw new CorruptFileException(WHAT, "no bytes (null) to decode; pass the bytes ColumnSchema.encode() returned");
    }
    byte[] payload = MetadataCodec.open(MAGIC, bytes, WHAT, WHAT);
    try {
      io.quiver.internal.proto.ColumnSchema proto = io.quiver.internal.proto.ColumnSchema.parseFrom(payload);
      if (proto.getTableLocation().isEmpty()) {
        throw new IllegalArgumentException("it names no table");
      }
      if (proto.getReadVersion() < 1) {
        throw new IllegalArgumentException("its read version is " + proto.getReadVersion() + ", expected >= 1");
      }
      if (!proto.hasContract() || proto.getContract().getFieldsCount() == 0) {
        throw new IllegalArgumentException("its contract holds no field; a column schema writes at least one");
      }
      Schema contract = SchemaCodec.decode(proto.getContract());
      Set<Integer> top = new TreeSet<>();
      contract.fields().forEach(f -> top.add(f.id()));
      Set<Integer> fresh = new TreeSet<>(proto.getNewFieldIdsList());
      if (!top.containsAll(fresh)) {
        throw new IllegalArgumentException("new field ids " + fresh + " are not all top-level fields of the contract "
            + contract.fields().stream().map(Field::name).toList() + " (ids " + top + ")");
      }
      Schema inputs = proto.hasInputs() ? SchemaCodec.decode(proto.getInputs()) : Schema.empty();
      return new Decoded(proto.getTableLocation(), proto.getReadVersion(), contract, fresh, inputs);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(WHAT, "payload is not valid protobuf: " + e.getMessage()
          + "; pass the exact bytes ColumnSchema.encode() returned", e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(WHAT, "invalid column schema: " + e.getMessage()
          + "; pass the exact bytes ColumnSchema.encode() returned", e);
    }
  }
}
