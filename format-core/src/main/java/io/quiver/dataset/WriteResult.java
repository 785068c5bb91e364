package io.quiver.dataset;

import io.quiver.internal.codec.WriteResultCodec;
import io.quiver.internal.table.Idempotence;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Schema;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a worker's {@link DistributedWriter} wrote: new fragments (data files, row counts; ids are assigned
 * at commit), the schema contract they were written with (the table schema with field ids) and the
 * version that schema was read at. Nothing is visible until a driver commits results with {@link
 * DistributedWrites#commit}. Immutable; travels between processes as {@link #encode()} bytes.
 */
public final class WriteResult {
  /**
   * The multiset digest of a result's rows: their count and two 64-bit sums of per-row hashes, independent of
   * row order, batching and file layout (docs/format.md §10). Results of one write combine by addition.
   */
  public record RowsDigest(long rows, long sumA, long sumB) {}

  private final String tableLocation;
  private final long readVersion;
  private final Schema schema;
  private final List<Fragment> fragments;
  private final Optional<RowsDigest> rowsDigest;

  WriteResult(String tableLocation, long readVersion, Schema schema, List<Fragment> fragments,
      Optional<RowsDigest> rowsDigest) {
    this.tableLocation = Objects.requireNonNull(tableLocation, "tableLocation");
    this.readVersion = readVersion;
    this.schema = Objects.requireNonNull(schema, "schema");
    this.fragments = List.copyOf(fragments);
    this.rowsDigest = Objects.requireNonNull(rowsDigest, "rowsDigest");
  }

  /** The table the fragments belong to. */
  public String tableLocation() {
    return tableLocation;
  }

  /** The version whose schema the worker wrote with. */
  public long readVersion() {
    return readVersion;
  }

  /** The schema contract: field ids, names, types and nullability the data files hold. */
  public Schema schema() {
    return schema;
  }

  /** The new fragments (placeholder id 0). */
  public List<Fragment> fragments() {
    return fragments;
  }

  /** Rows written. */
  public long rows() {
    return fragments.stream().mapToLong(Fragment::physicalRows).sum();
  }

  /** Every data file path written. */
  public List<String> files() {
    return fragments.stream().flatMap(f -> f.files().stream()).map(io.quiver.manifest.DataFile::path).toList();
  }

  /** Compact deterministic bytes (protobuf in a checksummed envelope, magic {@code QVR1}). */
  public byte[] encode() {
    return WriteResultCodec.encodeWrite(decoded());
  }

  /**
   * Decodes bytes from {@link #encode()}.
   *
   * @throws io.quiver.exceptions.CorruptFileException if the bytes are damaged or not a write result
   */
  public static WriteResult decode(byte[] bytes) {
    return of(WriteResultCodec.decodeWrite(bytes));
  }

  /**
   * The digest an append of {@code results} records in the table's idempotence ledger: of the rows they
   * hold (in any order, split across any results and files), so a retry that rewrote the same rows has the
   * same digest. Compare it with {@link CommitRecord#operationDigest()} to tell whether a commit found
   * under an idempotence key committed these rows. Results decoded from format 1.0 bytes carry no rows
   * digest; an append including one digests its fragments' files instead (a rewrite then differs).
   */
  public static String appendDigest(List<WriteResult> results) {
    return Idempotence.appendDigest(results);
  }

  /** The digest of this result's rows, absent for results encoded by format 1.0 writers. */
  public Optional<RowsDigest> rowsDigest() {
    return rowsDigest;
  }

  WriteResultCodec.DecodedWrite decoded() {
    return new WriteResultCodec.DecodedWrite(tableLocation, readVersion, schema, fragments, rowsDigest);
  }

  static WriteResult of(WriteResultCodec.DecodedWrite d) {
    return new WriteResult(d.tableLocation(), d.readVersion(), d.schema(), d.fragments(), d.rows());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WriteResult w && tableLocation.equals(w.tableLocation) && readVersion == w.readVersion
        && schema.equals(w.schema) && fragments.equals(w.fragments) && rowsDigest.equals(w.rowsDigest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableLocation, readVersion, schema, fragments);
  }

  @Override
  public String toString() {
    return "WriteResult[" + tableLocation + " @ version " + readVersion + ", " + fragments.size() + " fragments, "
        + rows() + " rows]";
  }
}
