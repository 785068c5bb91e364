package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.ColumnSchemaCodec;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The columns a staged column write stores, with field ids allocated centrally by {@link
 * DatasetColumns#newSchema}: new top-level columns (ids above the snapshot's high-water mark) and
 * existing fields targeted for rewrite (with their struct ancestors holding only the targeted members),
 * and the existing fields the values are computed from (the <em>inputs</em>). Every write staged with
 * it records the backing of every input field in its fragment, and its commit is refused when an input
 * changed or was dropped since. Immutable. Hand the same value to every worker so all fragments of one
 * commit agree on the ids: in another process, ship {@link #encode()} and {@link #decode(byte[])} it there.
 */
public final class ColumnSchema {
  private final String tableLocation;
  private final long readVersion;
  private final Schema contract;
  private final Set<Integer> newFieldIds;
  private final Schema inputs;

  public ColumnSchema(String tableLocation, long readVersion, Schema contract, Set<Integer> newFieldIds, Schema inputs) {
    this.tableLocation = tableLocation;
    this.readVersion = readVersion;
    this.contract = contract;
    this.newFieldIds = Set.copyOf(new TreeSet<>(newFieldIds));
    this.inputs = inputs;
  }

  /** The table the ids were allocated for. */
  public String tableLocation() {
    return tableLocation;
  }

  /** The version whose schema the ids were allocated from. */
  public long readVersion() {
    return readVersion;
  }

  /** The full contract: the written columns with ids, names, types, nullability and children. */
  public Schema contract() {
    return contract;
  }

  /** Ids of the top-level columns that are new (the others are existing fields being rewritten). */
  public Set<Integer> newFieldIds() {
    return newFieldIds;
  }

  /**
   * The existing fields the values are computed from, with ids, names and types as of {@link
   * #readVersion()} (struct ancestors holding only the declared members; an input struct whole). Empty
   * when none were declared.
   */
  public Schema inputs() {
    return inputs;
  }

  /**
   * Ids of the atomic input fields (a declared struct stands for all its members, a list or map member
   * for the whole list or map): the fields whose backing every staged write binds besides its own.
   */
  public Set<Integer> inputFieldIds() {
    Set<Integer> ids = new TreeSet<>();
    inputs.atomicFields().forEach(f -> ids.add(f.id()));
    return Set.copyOf(ids);
  }

  /** The Arrow schema the batches given to {@link DatasetColumns#writeFragment} must have. */
  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return contract.toArrow();
  }

  /**
   * The same schema restricted to some of its top-level columns (to stage them in separate files). The
   * inputs are kept whole: which of them a column was computed from is not known here.
   */
  public ColumnSchema select(String... topLevelColumns) {
    List<Field> kept = new ArrayList<>();
    for (String name : topLevelColumns) {
      Field f = contract.findTopLevel(name).orElseThrow(() -> new InvalidArgumentException(
          "column schema has no top-level column '" + name + "'; it has "
              + contract.fields().stream().map(Field::name).toList()));
      if (!kept.contains(f)) {
        kept.add(f);
      }
    }
    if (kept.isEmpty()) {
      throw new InvalidArgumentException("select at least one column");
    }
    Set<Integer> ids = new TreeSet<>();
    kept.forEach(f -> ids.add(f.id()));
    List<Field> ordered = contract.fields().stream().filter(f -> ids.contains(f.id())).toList();
    Set<Integer> fresh = new TreeSet<>(newFieldIds);
    fresh.retainAll(ids);
    return new ColumnSchema(tableLocation, readVersion, new Schema(ordered, contract.metadata()), fresh, inputs);
  }

  // ---------------------------------------------------------------- bytes

  /**
   * Compact deterministic bytes, for a driver to ship this schema to its workers: protobuf ({@code
   * quiver.v1.ColumnSchema}, staged.proto) in the checksummed metadata envelope, magic {@code QVK1}. Holds
   * the table, the version, the contract (recursively, with ids), the new field ids and the inputs. Equal
   * schemas encode to equal bytes.
   */
  public byte[] encode() {
    return ColumnSchemaCodec.encode(
        new ColumnSchemaCodec.Decoded(tableLocation, readVersion, contract, newFieldIds, inputs));
  }

  /**
   * Decodes bytes from {@link #encode()}: the result equals the encoded schema, and writes staged with it
   * commit exactly as writes staged with the original.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are null, truncated or damaged (checksum),
   *     not a column schema (another magic), or describe an invalid one (no table, no field, a new field id
   *     that is not a top-level field of the contract); the message says which
   */
  public static ColumnSchema decode(byte[] bytes) {
    ColumnSchemaCodec.Decoded d = ColumnSchemaCodec.decode(bytes);
    return new ColumnSchema(d.tableLocation(), d.readVersion(), d.contract(), d.newFieldIds(), d.inputs());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnSchema c && tableLocation.equals(c.tableLocation) && readVersion == c.readVersion
        && contract.equals(c.contract) && newFieldIds.equals(c.newFieldIds) && inputs.equals(c.inputs);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableLocation, readVersion, contract, newFieldIds, inputs);
  }

  @Override
  public String toString() {
    return "ColumnSchema[" + tableLocation + " @ version " + readVersion + ", new " + newFieldIds + ": " + contract
        + (inputs.fields().isEmpty() ? "" : ", inputs " + inputFieldIds()) + "]";
  }
}
