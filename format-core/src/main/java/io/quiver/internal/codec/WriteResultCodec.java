package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.dataset.WriteResult.RowsDigest;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Schema;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Bytes of distributed-write results and checkpoint markers, each in the metadata envelope (magic,
 * CRC-32C, deterministic protobuf): {@code QVR1} for one {@code quiver.v1.WriteResult}, {@code QVB1} for a
 * {@code quiver.v1.WorkerResults} bundle (write results and staged column writes, as one task produced
 * them), {@code QVC1} for a {@code quiver.v1.CheckpointMarker}. Equal values encode to equal bytes.
 */
public final class WriteResultCodec {
  private static final byte[] RESULT_MAGIC = "QVR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BUNDLE_MAGIC = "QVB1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MARKER_MAGIC = "QVC1".getBytes(StandardCharsets.US_ASCII);

  private WriteResultCodec() {}

  /** A decoded write result: new fragments (placeholder ids) written with {@code schema} at {@code readVersion}. */
  public record DecodedWrite(
      String tableLocation, long readVersion, Schema schema, List<Fragment> fragments, Optional<RowsDigest> rows) {}

  /** The digest of the rows a write result holds: count and the sums of two per-row hashes. */

  /** A decoded bundle: write results and staged column writes, each in the order encoded. */
  public record DecodedBundle(List<DecodedWrite> writes, List<StagedWriteCodec.Decoded> columnWrites) {}

  /** A decoded checkpoint marker. */
  public record Marker(List<String> tasks, long committedVersion) {}

  public static byte[] encodeWrite(DecodedWrite w) {
    return MetadataCodec.envelope(RESULT_MAGIC, MetadataCodec.deterministic(proto(w)));
  }

  public static DecodedWrite decodeWrite(byte[] bytes) {
    String what = "write result";
    byte[] payload = open(RESULT_MAGIC, bytes, what, "WriteResult.encode()");
    try {
      return decode(io.quiver.internal.proto.WriteResult.parseFrom(payload));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(what, "payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(what, "invalid write result: " + e.getMessage(), e);
    }
  }

  public static byte[] encodeBundle(DecodedBundle bundle) {
    io.quiver.internal.proto.WorkerResults.Builder b = io.quiver.internal.proto.WorkerResults.newBuilder();
    for (DecodedWrite w : bundle.writes()) {
      b.addResults(io.quiver.internal.proto.WorkerResult.newBuilder().setWrite(proto(w)));
    }
    for (StagedWriteCodec.Decoded c : bundle.columnWrites()) {
      b.addResults(io.quiver.internal.proto.WorkerResult.newBuilder().setColumnWrite(
          io.quiver.internal.proto.StagedColumnWrite.newBuilder()
              .setTableLocation(c.tableLocation())
              .setReadVersion(c.readVersion())
              .setWrite(MetadataCodec.encode(c.write()))));
    }
    return MetadataCodec.envelope(BUNDLE_MAGIC, MetadataCodec.deterministic(b.build()));
  }

  public static DecodedBundle decodeBundle(byte[] bytes, String location) {
    byte[] payload = open(BUNDLE_MAGIC, bytes, location, "WorkerResults.encode()");
    try {
      List<DecodedWrite> writes = new ArrayList<>();
      List<StagedWriteCodec.Decoded> columns = new ArrayList<>();
      for (io.quiver.internal.proto.WorkerResult r : io.quiver.internal.proto.WorkerResults.parseFrom(payload)
          .getResultsList()) {
        if (r.hasWrite()) {
          writes.add(decode(r.getWrite()));
        } else if (r.hasColumnWrite()) {
          io.quiver.internal.proto.StagedColumnWrite c = r.getColumnWrite();
          if (!c.hasWrite()) {
            throw new IllegalArgumentException("a staged column write holds no write");
          }
          columns.add(new StagedWriteCodec.Decoded(c.getTableLocation(), c.getReadVersion(),
              MetadataCodec.decode(c.getWrite())));
        } else {
          throw new IllegalArgumentException("a worker result holds neither a write result nor a column write");
        }
      }
      return new DecodedBundle(writes, columns);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(location, "invalid worker results: " + e.getMessage(), e);
    }
  }

  public static byte[] encodeMarker(Marker marker) {
    return MetadataCodec.envelope(MARKER_MAGIC, MetadataCodec.deterministic(
        io.quiver.internal.proto.CheckpointMarker.newBuilder()
            .addAllTasks(marker.tasks())
            .setCommittedVersion(marker.committedVersion())
            .build()));
  }

  public static Marker decodeMarker(byte[] bytes, String location) {
    byte[] payload = open(MARKER_MAGIC, bytes, location, "a checkpoint store");
    try {
      io.quiver.internal.proto.CheckpointMarker m = io.quiver.internal.proto.CheckpointMarker.parseFrom(payload);
      return new Marker(List.copyOf(m.getTasksList()), m.getCommittedVersion());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "payload is not valid protobuf: " + e.getMessage(), e);
    }
  }

  /**
   * SHA-256 (hex) of the operation's deterministic encoding, independent of transaction uuid, read
   * version and properties: two commits with equal operations have equal digests.
   */
  public static String operationDigest(Operation op) {
    byte[] bytes = MetadataCodec.encodeTransaction(new Transaction("0", 0, op, Map.of()));
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  private static byte[] open(byte[] magic, byte[] bytes, String location, String source) {
    if (bytes == null) {
      throw new CorruptFileException(location, "no bytes (null) to decode; pass the bytes " + source + " returned");
    }
    return MetadataCodec.open(magic, bytes, location, new String(magic, StandardCharsets.US_ASCII) + " metadata");
  }

  private static io.quiver.internal.proto.WriteResult proto(DecodedWrite w) {
    io.quiver.internal.proto.WriteResult.Builder b = io.quiver.internal.proto.WriteResult.newBuilder()
        .setTableLocation(w.tableLocation())
        .setReadVersion(w.readVersion())
        .setSchema(SchemaCodec.encode(w.schema()));
    for (Fragment f : w.fragments()) {
      b.addFragments(MetadataCodec.encode(f));
    }
    w.rows().ifPresent(r -> b.setRowsDigest(io.quiver.internal.proto.RowsDigest.newBuilder()
        .setRows(r.rows()).setSumA(r.sumA()).setSumB(r.sumB())));
    return b.build();
  }

  private static DecodedWrite decode(io.quiver.internal.proto.WriteResult p) {
    if (!p.hasSchema()) {
      throw new IllegalArgumentException("the write result holds no schema contract");
    }
    List<Fragment> fragments = new ArrayList<>();
    for (io.quiver.internal.proto.Fragment f : p.getFragmentsList()) {
      fragments.add(MetadataCodec.decode(f));
    }
    Optional<RowsDigest> rows = Optional.empty();
    if (p.hasRowsDigest()) {
      io.quiver.internal.proto.RowsDigest r = p.getRowsDigest();
      long physical = fragments.stream().mapToLong(Fragment::physicalRows).sum();
      if (r.getRows() != physical) {
        throw new IllegalArgumentException(
            "the rows digest counts " + r.getRows() + " rows but the fragments hold " + physical);
      }
      rows = Optional.of(new RowsDigest(r.getRows(), r.getSumA(), r.getSumB()));
    }
    return new DecodedWrite(
        p.getTableLocation(), p.getReadVersion(), SchemaCodec.decode(p.getSchema()), fragments, rows);
  }
}
