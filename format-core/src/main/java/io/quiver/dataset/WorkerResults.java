package io.quiver.dataset;

import io.quiver.internal.codec.StagedWriteCodec;
import io.quiver.internal.codec.WriteResultCodec;
import java.util.List;
import java.util.Objects;

/**
 * Everything one worker task produced, of both kinds — {@link WriteResult}s (new fragments) and {@link
 * StagedColumnWrite}s (column backfills) — so one channel (a shuffle, an RPC, a checkpoint store) can ship
 * both. Encodes to deterministic bytes (magic {@code QVB1}).
 *
 * @param writes write results, in order
 * @param columnWrites staged column writes, in order
 */
public record WorkerResults(List<WriteResult> writes, List<StagedColumnWrite> columnWrites) {
  public WorkerResults {
    writes = List.copyOf(Objects.requireNonNull(writes, "writes"));
    columnWrites = List.copyOf(Objects.requireNonNull(columnWrites, "columnWrites"));
  }

  /** Only write results. */
  public static WorkerResults of(List<WriteResult> writes) {
    return new WorkerResults(writes, List.of());
  }

  /** Only staged column writes. */
  public static WorkerResults ofColumnWrites(List<StagedColumnWrite> columnWrites) {
    return new WorkerResults(List.of(), columnWrites);
  }

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVB1}). */
  public byte[] encode() {
    return WriteResultCodec.encodeBundle(new WriteResultCodec.DecodedBundle(
        writes.stream().map(WriteResult::decoded).toList(),
        columnWrites.stream()
            .map(c -> new StagedWriteCodec.Decoded(c.tableLocation(), c.readVersion(), c.write()))
            .toList()));
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are damaged or not worker results
   */
  public static WorkerResults decode(byte[] bytes) {
    return decode(bytes, "worker results");
  }

  /** Decodes bytes read from {@code location} (named in errors). */
  public static WorkerResults decode(byte[] bytes, String location) {
    WriteResultCodec.DecodedBundle d = WriteResultCodec.decodeBundle(bytes, location);
    return new WorkerResults(
        d.writes().stream().map(WriteResult::of).toList(),
        d.columnWrites().stream()
            .map(c -> new StagedColumnWrite(c.tableLocation(), c.readVersion(), c.write()))
            .toList());
  }
}
