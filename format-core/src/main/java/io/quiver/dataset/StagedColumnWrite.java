package io.quiver.dataset;

import io.quiver.internal.codec.StagedWriteCodec;
import io.quiver.internal.txn.FieldBacking;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.DataFile;
import io.quiver.schema.Schema;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The result of {@link DatasetColumns#writeFragment}: one fragment's values of some columns in a staged
 * data file, bound to the snapshot they were computed from. Immutable; travels between processes as
 * {@link #encode()} bytes. It holds the table and version it was prepared at, the fragment and its
 * physical rows, the full recursive contract of what it stores, the file, and the witness — for every
 * stored field, the exact base column (or its absence) and every overlay entry that backed the field in
 * the fragment — and, when the column schema declared inputs, the same backing for every input field
 * (the fields the values were computed from). {@link DatasetColumns#commit} publishes it only while
 * the witness of every written and every input field still holds.
 */
public final class StagedColumnWrite {
  private final String tableLocation;
  private final long readVersion;
  private final Operation.ColumnWrite write;

  StagedColumnWrite(String tableLocation, long readVersion, Operation.ColumnWrite write) {
    this.tableLocation = Objects.requireNonNull(tableLocation, "tableLocation");
    this.readVersion = readVersion;
    this.write = Objects.requireNonNull(write, "write");
  }

  /** The table this write belongs to. */
  public String tableLocation() {
    return tableLocation;
  }

  /** The version the write was computed against. */
  public long readVersion() {
    return readVersion;
  }

  /** The fragment. */
  public long fragmentId() {
    return write.fragmentId();
  }

  /** The fragment's physical rows (deleted ones included) — the staged file holds exactly that many. */
  public long physicalRows() {
    return write.physicalRows();
  }

  /** The fragment's data file paths when the write was prepared. */
  public List<String> preparedFiles() {
    return write.preparedFiles();
  }

  /** What the staged file stores: fields with ids, names, types, nullability and children. */
  public Schema contract() {
    return write.contract();
  }

  /** Ids of the contract's top-level columns that are new. */
  public Set<Integer> newFieldIds() {
    return write.newFieldIds();
  }

  /** The staged data file (path, size, field ids, column indices, format version). */
  public DataFile file() {
    return write.file();
  }

  /** For every stored field, its prepare-time backing in the fragment (in the encoding; for tests). */
  List<FieldBacking> witness() {
    return write.witness();
  }

  /** Ids of the atomic input fields the values were computed from (empty when none were declared). */
  public Set<Integer> inputFieldIds() {
    return write.inputFieldIds();
  }

  /** For every input field, its prepare-time backing in the fragment, in field-id order (for tests). */
  List<FieldBacking> inputWitness() {
    return write.inputs().stream().map(Operation.ColumnInput::backing).toList();
  }

  /** The column write as the engine commits it; the engine itself reads it from {@link #encode()}. */
  Operation.ColumnWrite write() {
    return write;
  }

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVS1}). */
  public byte[] encode() {
    return StagedWriteCodec.encode(tableLocation, readVersion, write);
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are damaged or not a staged write
   */
  public static StagedColumnWrite decode(byte[] bytes) {
    StagedWriteCodec.Decoded d = StagedWriteCodec.decode(bytes);
    return new StagedColumnWrite(d.tableLocation(), d.readVersion(), d.write());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StagedColumnWrite s && tableLocation.equals(s.tableLocation) && readVersion == s.readVersion
        && write.equals(s.write);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableLocation, readVersion, write);
  }

  @Override
  public String toString() {
    return "StagedColumnWrite[" + tableLocation + " @ version " + readVersion + ", fragment " + fragmentId() + ", "
        + contract().fields().stream().map(io.quiver.schema.Field::name).toList() + " in " + file().path()
        + (write.inputs().isEmpty() ? "" : ", from " + write.inputs().stream().map(Operation.ColumnInput::path).toList())
        + "]";
  }
}
