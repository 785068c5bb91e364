package io.quiver.bench.lance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Version;
import org.lance.WriteParams;
import org.lance.fragment.DataFile;
import org.lance.fragment.FragmentUpdateResult;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.index.scalar.BitmapIndexParams;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Update;

/**
 * A thin facade over Lance's Java SDK ({@code org.lance:lance-core:7.0.0}) for the side-by-side
 * benchmarks of issue 9. Every input and output is an Arrow Java type, so the benchmarks feed the
 * same generated batches to Quiver and to Lance. Each method names the Lance call it uses.
 *
 * <p>One instance is one open handle on one Lance dataset (one {@link Dataset}), checked out at some
 * version. Writes made through this handle move it to the version they created; writes made through
 * other handles are seen after {@link #checkoutLatest()}. Not thread-safe: concurrent writers each
 * use their own handle (see {@link #open}).
 *
 * <p><b>Memory.</b> The caller's {@link BufferAllocator} is given to Lance as the dataset's
 * allocator; Lance allocates scan/take results and its C-stream structs from it. Every method
 * releases what it allocated before it returns, except {@link #take}, whose result the caller
 * closes. Close the handle before checking the allocator for leaks.
 *
 * <p><b>Lance behaviour that matters for fair benchmarking</b> (verified by the tests of this
 * package on 7.0.0):
 *
 * <ul>
 *   <li>Versions: creating a dataset makes version 1; every append, add-columns and update commit
 *       adds exactly one version. {@link #versionCount()} counts manifests on disk ({@code
 *       listVersions()}), so after create + k commits it is k + 1.
 *   <li>Appends that race are rebased and retried inside Lance's commit (appends never conflict
 *       with appends), so {@link #append} normally succeeds first time; see {@link
 *       #appendRetrying} for the Java-level retry that counts any failures that still escape.
 *   <li>Scans decode on Lance's own native thread pool (tokio), not the calling thread; a
 *       single-threaded Quiver scan is compared against a multi-threaded Lance scan unless the
 *       benchmark limits Lance's threads (e.g. {@code LANCE_CPU_THREADS}/{@code
 *       LANCE_IO_THREADS} environment variables on the forked JVM).
 *   <li>{@link #take} results cross JNI as Arrow IPC bytes and are deserialized into Java buffers
 *       (a copy); scans cross zero-copy through the Arrow C stream interface.
 * </ul>
 */
public final class LanceTable implements AutoCloseable {
  private final BufferAllocator allocator;
  private final Path dir;
  private Dataset dataset;

  private LanceTable(BufferAllocator allocator, Path dir, Dataset dataset) {
    this.allocator = allocator;
    this.dir = dir;
    this.dataset = dataset;
  }

  // ---------------------------------------------------------------------------------------------
  // Create / open

  /**
   * Creates a new dataset at {@code dir} from the batches of {@code batches}, in one commit
   * (version 1). Lance call: {@code Dataset.write().reader(batches).mode(CREATE)
   * .maxRowsPerFile(n).execute()} — Lance cuts a new data file, i.e. a new fragment, every {@code
   * maxRowsPerFile} rows, so {@code rows / maxRowsPerFile} (rounded up) fragments result.
   *
   * <p>The reader is consumed and closed (Lance's C stream export releases it).
   *
   * @param maxRowsPerFile rows per fragment; {@code <= 0} keeps Lance's default (1,048,576)
   * @param maxRowsPerGroup rows per Lance page group; {@code <= 0} keeps Lance's default (1,024)
   */
  public static LanceTable create(
      BufferAllocator allocator, Path dir, ArrowReader batches, int maxRowsPerFile,
      int maxRowsPerGroup) {
    var builder =
        Dataset.write()
            .allocator(allocator)
            .reader(batches)
            .uri(dir.toString())
            .mode(WriteParams.WriteMode.CREATE);
    if (maxRowsPerFile > 0) {
      builder.maxRowsPerFile(maxRowsPerFile);
    }
    if (maxRowsPerGroup > 0) {
      builder.maxRowsPerGroup(maxRowsPerGroup);
    }
    try (batches) {
      return new LanceTable(allocator, dir, builder.execute());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates a new dataset from batches held in memory (they stay owned by the caller), as {@link
   * #create(BufferAllocator, Path, ArrowReader, int, int)} with Lance's default row-group size.
   */
  public static LanceTable create(
      BufferAllocator allocator, Path dir, Schema schema,
      Iterable<? extends VectorSchemaRoot> batches, int maxRowsPerFile) {
    return create(allocator, dir, BatchReader.of(allocator, schema, batches), maxRowsPerFile, 0);
  }

  /**
   * Creates a dataset of {@code fragments} fragments, each holding the rows of {@code batch}, in a
   * single commit (version 1), for the table-size benchmark (1k/10k/100k fragments).
   *
   * <p>Lance call: the same {@code Dataset.write()...mode(CREATE)} as {@link #create}, fed {@code
   * fragments} copies of {@code batch} with {@code maxRowsPerFile = batch.getRowCount()}, so Lance
   * cuts one data file (one fragment) per copy and commits one manifest. Measured on this machine
   * with 1-row fragments: 1k fragments in ~1.8 s, 10k in ~4.7 s (about 0.5 ms a fragment, so
   * 100k takes about a minute; do it once per trial). Writing each fragment with {@code
   * Fragment.write()} and committing one {@code Append} of all the metadata costs the same (5.3 s
   * for 10k), and N separate appends would cost N manifests.
   */
  public static LanceTable createWithFragments(
      BufferAllocator allocator, Path dir, VectorSchemaRoot batch, int fragments) {
    if (fragments < 1) {
      throw new IllegalArgumentException("fragments must be >= 1: " + fragments);
    }
    int rows = batch.getRowCount();
    List<VectorSchemaRoot> copies = new ArrayList<>(fragments);
    for (int i = 0; i < fragments; i++) {
      copies.add(batch);
    }
    // One writer call, one file per fragment: Lance cuts a file every `rows` rows.
    return create(allocator, dir, BatchReader.of(allocator, batch.getSchema(), copies), rows, 0);
  }

  /**
   * Opens the latest version of the dataset at {@code dir}. Lance call: {@code
   * Dataset.open().allocator(allocator).uri(dir).build()} (reads the latest manifest, which lists
   * every fragment).
   */
  public static LanceTable open(BufferAllocator allocator, Path dir) {
    return new LanceTable(
        allocator, dir, Dataset.open().allocator(allocator).uri(dir.toString()).build());
  }

  /** The dataset's directory. */
  public Path dir() {
    return dir;
  }

  /** The underlying Lance dataset, for checks the facade does not cover. */
  public Dataset dataset() {
    return dataset;
  }

  // ---------------------------------------------------------------------------------------------
  // Metadata

  /** Rows at the checked-out version. Lance call: {@code Dataset.countRows()}. */
  public long countRows() {
    return dataset.countRows();
  }

  /** Fragments at the checked-out version. Lance call: {@code Dataset.getFragments().size()}. */
  public int fragmentCount() {
    return dataset.getFragments().size();
  }

  /** The checked-out version. Lance call: {@code Dataset.version()}. */
  public long version() {
    return dataset.version();
  }

  /**
   * The newest version on disk (may be newer than {@link #version()} if other handles committed).
   * Lance call: {@code Dataset.latestVersion()}.
   */
  public long latestVersion() {
    return dataset.latestVersion();
  }

  /** Version ids on disk, oldest first. Lance call: {@code Dataset.listVersions()}. */
  public List<Long> versions() {
    return dataset.listVersions().stream().map(Version::getId).sorted().collect(Collectors.toList());
  }

  /** Number of versions on disk (create + one per commit). Lance call: {@code listVersions()}. */
  public int versionCount() {
    return dataset.listVersions().size();
  }

  /** Moves this handle to the newest version. Lance call: {@code Dataset.checkoutLatest()}. */
  public void checkoutLatest() {
    dataset.checkoutLatest();
  }

  /** The Lance data-file format version of the dataset (e.g. "2.0"). */
  public String fileFormatVersion() {
    return dataset.getLanceFileFormatVersion();
  }

  /**
   * "Plans" a scan of every fragment: lists the fragments of the checked-out version and counts
   * their data files and physical rows from the manifest, reading no data. Lance call: {@code
   * Dataset.getFragments()} + {@code Fragment.metadata()}. This is the part of a scan that grows
   * with the number of fragments; Lance's Java SDK exposes no explain/plan call.
   *
   * @return the number of data files a full scan would open
   */
  public long planScan() {
    long files = 0;
    long rows = 0;
    for (Fragment fragment : dataset.getFragments()) {
      FragmentMetadata metadata = fragment.metadata();
      files += metadata.getFiles().size();
      rows += metadata.getPhysicalRows();
    }
    if (rows < 0) {
      throw new IllegalStateException("negative row count");
    }
    return files;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** What a checksum scan saw. */
  public record ScanResult(long rows, long batches, long checksum) {}

  /**
   * Scans {@code columns} (all columns if {@code null}) at the checked-out version, handing every
   * batch to {@code consumer} before the next is loaded. Lance calls: {@code
   * Dataset.newScan(ScanOptions.columns(..).batchSize(..))} then {@code
   * LanceScanner.scanBatches()}, an {@link ArrowReader} over Lance's C stream.
   *
   * @param batchSize rows per batch Lance returns; {@code <= 0} keeps Lance's default (8,192)
   * @return rows scanned
   */
  @SuppressWarnings("try") // LanceScanner.close() is declared to throw Exception
  public long scan(List<String> columns, long batchSize, Consumer<VectorSchemaRoot> consumer) {
    ScanOptions.Builder options = new ScanOptions.Builder();
    if (columns != null) {
      options.columns(columns);
    }
    if (batchSize > 0) {
      options.batchSize(batchSize);
    }
    long rows = 0;
    try (LanceScanner scanner = dataset.newScan(options.build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        rows += root.getRowCount();
        consumer.accept(root);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted closing a Lance scanner", e);
    } catch (Exception e) {
      throw new IllegalStateException("Lance scan failed", e);
    }
    return rows;
  }

  /**
   * The batches of a scan of {@code columns} (all if {@code null}) as a reader, so benchmarks consume
   * Lance's batches with the same code as Quiver's; closing the reader closes Lance's scanner. Same
   * Lance calls as {@link #scan(List, long, Consumer)}.
   */
  public ArrowReader scanReader(List<String> columns, long batchSize) {
    return scanReader(columns, batchSize, null);
  }

  /**
   * {@link #scanReader(List, long)} with {@code filter} (a Lance SQL filter, e.g. {@code "id >= 5 AND id < 9"};
   * null for none) pushed down to Lance's scanner ({@code ScanOptions.filter}).
   */
  public ArrowReader scanReader(List<String> columns, long batchSize, String filter) {
    return scanReader(columns, batchSize, filter, true);
  }

  /**
   * {@link #scanReader(List, long, String)}, with Lance's scalar indices allowed to answer the filter or not
   * ({@code ScanOptions.useScalarIndex}; Lance's default is true). With false Lance evaluates the filter on every
   * row it reads, as for a table without indices.
   */
  public ArrowReader scanReader(List<String> columns, long batchSize, String filter, boolean useScalarIndex) {
    ScanOptions.Builder options = new ScanOptions.Builder();
    if (columns != null) {
      options.columns(columns);
    }
    if (filter != null) {
      options.filter(filter);
    }
    if (!useScalarIndex) {
      options.useScalarIndex(false);
    }
    if (batchSize > 0) {
      options.batchSize(batchSize);
    }
    LanceScanner scanner = dataset.newScan(options.build());
    ArrowReader batches;
    try {
      batches = scanner.scanBatches();
    } catch (RuntimeException e) {
      closeQuietly(scanner);
      throw e;
    }
    return new ArrowReader(allocator) {
      @Override
      public boolean loadNextBatch() throws IOException {
        return batches.loadNextBatch();
      }

      @Override
      public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
        return batches.getVectorSchemaRoot();
      }

      @Override
      public long bytesRead() {
        return batches.bytesRead();
      }

      @Override
      protected void closeReadSource() throws IOException {
        try {
          batches.close();
        } finally {
          closeQuietly(scanner);
        }
      }

      @Override
      protected Schema readSchema() throws IOException {
        return batches.getVectorSchemaRoot().getSchema();
      }
    };
  }

  private static void closeQuietly(LanceScanner scanner) {
    try {
      scanner.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing a Lance scanner failed", e);
    }
  }

  /**
   * Scans {@code columns} (all if {@code null}) and sums the int64 column {@code sumColumn}, which
   * must be among them, so the scan's data is touched and cannot be skipped. See {@link
   * #scan(List, long, Consumer)} for the Lance calls.
   */
  public ScanResult scanSum(List<String> columns, String sumColumn, long batchSize) {
    long[] acc = new long[2];
    long rows =
        scan(
            columns,
            batchSize,
            root -> {
              acc[0]++;
              acc[1] += int64Sum(root, sumColumn);
            });
    return new ScanResult(rows, acc[0], acc[1]);
  }

  /**
   * Sum of the non-null values of int64 column {@code column} in {@code root}, read straight from
   * the data buffer. Benchmarks should use this same consumer on the Quiver side.
   */
  public static long int64Sum(VectorSchemaRoot root, String column) {
    BigIntVector vector = (BigIntVector) root.getVector(column);
    if (vector == null) {
      throw new IllegalArgumentException("no column " + column + " in " + root.getSchema());
    }
    var data = vector.getDataBuffer();
    int n = root.getRowCount();
    long sum = 0;
    if (vector.getNullCount() == 0) {
      for (int i = 0; i < n; i++) {
        sum += data.getLong((long) i * BigIntVector.TYPE_WIDTH);
      }
    } else {
      for (int i = 0; i < n; i++) {
        if (!vector.isNull(i)) {
          sum += data.getLong((long) i * BigIntVector.TYPE_WIDTH);
        }
      }
    }
    return sum;
  }

  /**
   * Returns the rows at {@code positions} (0-based offsets into the checked-out version, in scan
   * order), in the order given, with {@code columns} only. The caller closes the result.
   *
   * <p>Lance call: {@code Dataset.take(List<Long> indices, columns)} — "indices" are row
   * <i>offsets</i> across the whole dataset (Lance maps them to fragment + offset itself), not row
   * ids; {@code Dataset.takeRows} is the row-id/row-address variant ({@code fragmentId << 32 |
   * offset} while stable row ids are off). Lance returns the rows as Arrow IPC stream bytes read
   * back into {@code allocator}.
   */
  public VectorSchemaRoot take(long[] positions, List<String> columns) {
    List<Long> indices = Arrays.stream(positions).boxed().collect(Collectors.toList());
    try (ArrowReader reader = dataset.take(indices, columns)) {
      VectorSchemaRoot result = null;
      try {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot batch = reader.getVectorSchemaRoot();
          if (result == null) {
            result = transfer(batch);
          } else {
            VectorSchemaRootAppender.append(result, batch);
          }
        }
        if (result == null) {
          result = VectorSchemaRoot.create(reader.getVectorSchemaRoot().getSchema(), allocator);
        }
        return result;
      } catch (RuntimeException | IOException e) {
        if (result != null) {
          result.close();
        }
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private VectorSchemaRoot transfer(VectorSchemaRoot batch) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector vector : batch.getFieldVectors()) {
      TransferPair pair = vector.getTransferPair(allocator);
      pair.transfer();
      vectors.add((FieldVector) pair.getTo());
    }
    VectorSchemaRoot copy = new VectorSchemaRoot(batch.getSchema().getFields(), vectors);
    copy.setRowCount(batch.getRowCount());
    return copy;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * Appends {@code batch} as one new fragment and one new version; this handle moves to it. Lance
   * call: {@code Dataset.write().reader(batch).mode(APPEND).execute()}, which opens the latest
   * version, writes the data file and commits an {@code Append} transaction — retrying internally
   * (re-reading the latest manifest and rebasing) if another writer committed first.
   *
   * @return the version the append created
   */
  public long append(VectorSchemaRoot batch) {
    try (ArrowReader reader = BatchReader.of(allocator, batch.getSchema(), List.of(batch))) {
      Dataset next =
          Dataset.write()
              .allocator(allocator)
              .reader(reader)
              .uri(dir.toString())
              .mode(WriteParams.WriteMode.APPEND)
              .execute();
      dataset.close();
      dataset = next;
      return next.version();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What {@link #appendRetrying} did. */
  public record AppendResult(long version, int retries) {}

  /**
   * {@link #append} that retries, up to {@code maxAttempts} times in all, when Lance still
   * reports a commit conflict after its own internal retries. Any other failure is rethrown.
   */
  public AppendResult appendRetrying(VectorSchemaRoot batch, int maxAttempts) {
    int retries = 0;
    while (true) {
      try {
        return new AppendResult(append(batch), retries);
      } catch (RuntimeException e) {
        if (!isCommitConflict(e) || retries + 1 >= maxAttempts) {
          throw e;
        }
        retries++;
      }
    }
  }

  /** Whether {@code e} is Lance's "someone else committed first" error. */
  static boolean isCommitConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage()).toLowerCase();
      if (message.contains("conflict") || message.contains("concurrent")
          || message.contains("retry")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Adds a float32 column {@code name} whose values the caller computed, one per row in scan
   * order, in one commit (one new version). Lance call: {@code Dataset.addColumns(ArrowArrayStream,
   * batchSize)} — Lance reads the stream in row order, fragment by fragment, writes one new data
   * file per fragment holding only the new column, and commits one {@code Merge} transaction. The
   * existing data files are not rewritten. Lance's 2.1 file format encodes (and compresses)
   * values, so constant or low-entropy test values make Lance's new files far smaller than the raw
   * column (1e5 zeros became a 472-byte file); benchmarks should add realistic, random values.
   *
   * @param values exactly {@link #countRows()} values, in scan order
   * @return the new version
   */
  public long addFloat32Column(String name, float[] values) {
    Schema schema = new Schema(List.of(Field.notNullable(name, new ArrowType.FloatingPoint(
        org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE))));
    int chunk = 64 * 1024;
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int from = 0; from < values.length; from += chunk) {
        int n = Math.min(chunk, values.length - from);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        batches.add(root);
        Float4Vector vector = (Float4Vector) root.getVector(0);
        vector.allocateNew(n);
        for (int i = 0; i < n; i++) {
          vector.set(i, values[from + i]);
        }
        root.setRowCount(n);
      }
      return addColumns(BatchReader.of(allocator, schema, batches));
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Adds the columns of {@code newColumns} (one value per existing row, in scan order) in one
   * commit. Lance call: {@code Dataset.addColumns(ArrowArrayStream, Optional.empty())}; see {@link
   * #addFloat32Column}. The reader is consumed and closed.
   *
   * @return the new version
   */
  public long addColumns(ArrowReader newColumns) {
    try (newColumns;
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, newColumns, stream);
      dataset.addColumns(stream, Optional.empty());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dataset.version();
  }

  /** What an update did. */
  public record UpdateResult(
      long version, int fragmentsTouched, int filesWritten, long bytesWritten) {}

  /**
   * Sets {@code column} to {@code newValues[i]} at row {@code positions[i]} (0-based offsets in
   * scan order, distinct), in one commit.
   *
   * <p>Lance calls: for every fragment holding one of the rows, {@code
   * Fragment.updateColumns(stream, "_rowaddr", "_rowaddr")} with a stream of {@code (_rowaddr,
   * column)} pairs, then one {@code Update} transaction ({@code updatedFragments},
   * {@code fieldsModified}) through {@code Dataset.newTransactionBuilder()...commit()}. Lance 7.0.0's
   * Java SDK has no SQL {@code UPDATE ... WHERE}; this is its in-place column update, the path
   * lance-spark's {@code UPDATE COLUMNS FROM} uses. How Lance rewrites: each touched fragment gets
   * a new data file holding the <b>whole</b> updated column for that fragment (all its rows, not
   * just the changed cells), and the old file's entry for that field is tombstoned (field id -2)
   * but the old bytes stay on disk until compaction and cleanup; the fragment's other columns and
   * its row addresses are unchanged. So updating 1% of rows spread over every fragment rewrites
   * the entire column (measured: 1,000 float64 cells over 10 fragments of 100k rows wrote 810 KB,
   * the column's full 800 KB plus manifest), and later scans of that fragment read two files.
   *
   * <p>{@code bytesWritten} is the growth of the dataset directory (new data files + manifest +
   * transaction file), measured by listing it before and after.
   *
   * @param newValues a vector of the column's type with {@code positions.length} values
   */
  public UpdateResult update(String column, long[] positions, FieldVector newValues) {
    Set<Path> filesBefore = listFiles(dir);
    long bytesBefore = size(filesBefore);
    int touched = updateUnmeasured(column, positions, newValues);
    Set<Path> filesAfter = listFiles(dir);
    Set<Path> created = new HashSet<>(filesAfter);
    created.removeAll(filesBefore);
    int dataFiles = (int) created.stream().filter(p -> p.toString().endsWith(".lance")).count();
    return new UpdateResult(dataset.version(), touched, dataFiles, size(filesAfter) - bytesBefore);
  }

  /**
   * {@link #update} without listing the directory before and after (what the benchmark times).
   *
   * @return the number of fragments touched
   */
  public int updateUnmeasured(String column, long[] positions, FieldVector newValues) {
    if (newValues.getValueCount() != positions.length) {
      throw new IllegalArgumentException(
          positions.length + " positions but " + newValues.getValueCount() + " values");
    }

    List<Fragment> fragments = dataset.getFragments();
    long[] starts = new long[fragments.size() + 1];
    for (int f = 0; f < fragments.size(); f++) {
      starts[f + 1] = starts[f] + fragments.get(f).metadata().getNumRows();
    }
    // Group (position, value index) by fragment, keeping each fragment's rows in position order.
    Integer[] order = new Integer[positions.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(positions[a], positions[b]));

    Field valueField = new Field(column, newValues.getField().getFieldType(),
        newValues.getField().getChildren());
    Schema schema = new Schema(List.of(
        Field.notNullable("_rowaddr", new ArrowType.Int(64, false)), valueField));

    List<FragmentMetadata> updated = new ArrayList<>();
    Set<Long> fieldsModified = new TreeSet<>();
    int k = 0;
    int fragmentIndex = 0;
    while (k < order.length) {
      long position = positions[order[k]];
      if (position < 0 || position >= starts[fragments.size()]) {
        throw new IndexOutOfBoundsException("row " + position + " of " + starts[fragments.size()]);
      }
      while (position >= starts[fragmentIndex + 1]) {
        fragmentIndex++;
      }
      int end = k;
      while (end < order.length && positions[order[end]] < starts[fragmentIndex + 1]) {
        end++;
      }
      Fragment fragment = fragments.get(fragmentIndex);
      long fragmentBits = ((long) fragment.getId()) << 32;
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        UInt8Vector addresses = (UInt8Vector) root.getVector(0);
        FieldVector values = root.getVector(1);
        int n = end - k;
        addresses.allocateNew(n);
        values.setInitialCapacity(n);
        values.allocateNew();
        for (int i = 0; i < n; i++) {
          int source = order[k + i];
          if (i > 0 && positions[source] == positions[order[k + i - 1]]) {
            throw new IllegalArgumentException("duplicate position " + positions[source]);
          }
          addresses.set(i, fragmentBits | (positions[source] - starts[fragmentIndex]));
          values.copyFromSafe(source, i, newValues);
        }
        root.setRowCount(n);
        try (ArrowReader reader = BatchReader.of(allocator, schema, List.of(root));
            ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
          Data.exportArrayStream(allocator, reader, stream);
          FragmentUpdateResult result = fragment.updateColumns(stream, "_rowaddr", "_rowaddr");
          updated.add(result.getUpdatedFragment());
          for (long field : result.getFieldsModified()) {
            fieldsModified.add(field);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      k = end;
    }

    Update operation =
        Update.builder()
            .updatedFragments(updated)
            .fieldsModified(fieldsModified.stream().mapToLong(Long::longValue).toArray())
            .build();
    Dataset next;
    try (var transaction = dataset.newTransactionBuilder().operation(operation).build()) {
      next = transaction.commit();
    }
    dataset.close();
    dataset = next;
    return updated.size();
  }

  // ---------------------------------------------------------------------------------------------
  // Scalar indices

  /**
   * Builds a scalar index named {@code name} of {@code type} ({@code IndexType.BTREE} or {@code BITMAP}) on
   * {@code column} over every fragment and commits it (one new version); this handle moves to it. Lance call:
   * {@code Dataset.createIndex(List.of(column), type, Optional.of(name), IndexParams with
   * BTreeIndexParams/BitmapIndexParams defaults, replace = false)}. Its files go under {@code _indices/<uuid>/}.
   */
  public Index createScalarIndex(String column, IndexType type, String name) {
    ScalarIndexParams scalar = switch (type) {
      case BTREE -> BTreeIndexParams.builder().build();
      case BITMAP -> BitmapIndexParams.builder().build();
      default -> throw new IllegalArgumentException("not a scalar index type this facade builds: " + type);
    };
    return dataset.createIndex(List.of(column), type, Optional.of(name),
        IndexParams.builder().setScalarIndexParams(scalar).build(), false);
  }

  /** Names of the indices at the checked-out version. Lance call: {@code Dataset.listIndexes()}. */
  public List<String> indexNames() {
    return dataset.listIndexes();
  }

  /** Paths of the data files of the checked-out version's fragments (relative to {@code data/}). */
  public List<String> dataFilePaths() {
    List<String> paths = new ArrayList<>();
    for (Fragment fragment : dataset.getFragments()) {
      for (DataFile file : fragment.metadata().getFiles()) {
        paths.add(file.getPath());
      }
    }
    return paths;
  }

  /** Total size in bytes of the regular files under {@code dir}. */
  public static long directorySize(Path dir) {
    return size(listFiles(dir));
  }

  private static Set<Path> listFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toCollection(HashSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Set<Path> files) {
    long total = 0;
    for (Path file : files) {
      try {
        total += Files.size(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return total;
  }

  /** Closes the Lance handle (its native dataset). The allocator stays the caller's. */
  @Override
  public void close() {
    if (dataset != null) {
      dataset.close();
      dataset = null;
    }
  }

  @Override
  public String toString() {
    return "LanceTable[" + Objects.toString(dir) + "]";
  }
}
