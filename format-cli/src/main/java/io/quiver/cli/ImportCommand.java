package io.quiver.cli;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.TableNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver import}: creates the table from the first file (or appends when it exists) and appends
 * every other file. Files are streamed: parsed batch by batch straight into Arrow vectors and written as
 * fragments as they fill, so memory is bounded by the batch, not the file. Each file is one commit (or
 * one per {@code --commit-every} fragments); a file that fails part-way publishes nothing of itself.
 *
 * <p>CSV types are inferred from the first {@code --sample-rows} rows (bool, int64, float64, date,
 * timestamp, string) unless {@code --type} says otherwise; JSON lines likewise, with objects as structs
 * and arrays as lists; Arrow IPC files and streams keep their schema (record batches uncompressed or with
 * ZSTD or LZ4_FRAME body compression). A later value that does not fit its column's type
 * stops the import with a one-line error naming the file, line, column, value and the {@code --type} to
 * pass.
 *
 * <p>A table the import creates gets {@code --config} as its configuration, with {@value #FRAME_BYTES} =
 * {@value #IMPORT_FRAME_BYTES} unless {@code --config} sets that key; importing into an existing table uses
 * its configuration as it is.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = "Creates or appends to a table from CSV (.csv, .tsv), JSON lines (.jsonl, .json, .ndjson) or"
        + " Arrow IPC (.arrow, .arrows, .ipc, .feather) files, streaming: memory is bounded by the batch and"
        + " fragment sizes, not by the file. One commit per file (or per --commit-every fragments).",
    footer = {"%nA value that does not fit the inferred type stops the import (nothing of that file is committed)"
        + " with its file, line and column and the --type that would take it.",
        "%nExample: quiver import /tmp/t people.csv --type zip=string --null NA"})
final class ImportCommand extends TableCommand {
  /** The data file writer's system property: threads compressing each record batch (format-core). */
  static final String COMPRESSION_THREADS = "quiver.write.compressionThreads";
  /** The table configuration key of the uncompressed bytes per ZSTD frame (docs/format.md §5.1). */
  static final String FRAME_BYTES = "write.compression.frame-bytes";
  /**
   * {@link #FRAME_BYTES} of a table the import creates, unless {@code --config} sets it: a table made by a bulk
   * import is read mostly by scans, and 4 KiB frames take about half the compression CPU of the 1 KiB default,
   * which favours point reads (takes decompress whole frames).
   */
  static final String IMPORT_FRAME_BYTES = "4096";
  /**
   * Batches in memory at once (being parsed, parsed, being written): enough for the parser to run on while
   * the writer waits for a finished fragment's fsync (tens of milliseconds), about a megabyte each at the
   * default --batch-rows for a few columns.
   */
  static final int ROOTS = 16;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "<file>")
  List<Path> files;

  @Option(names = "--type", paramLabel = "col=type",
      description = "Type of a CSV/JSON column instead of the inferred one (repeatable). Types: " + Types.NAMES
          + ". In JSON, string keeps any value (objects, arrays) as its JSON text.")
  Map<String, String> typeOverrides = new LinkedHashMap<>();

  @Option(names = "--delimiter", paramLabel = "<char>",
      description = "CSV field delimiter: one ASCII character, or tab (default: , and tab for .tsv).")
  String delimiter;

  @Option(names = "--quote", paramLabel = "<char>", description = "CSV quote character, ASCII (default: \").")
  char quote = '"';

  @Option(names = "--null", paramLabel = "<string>",
      description = "CSV cell text that means null (default: the empty cell). Quoted, it is a value in a string"
          + " column (\"\" is the empty string).")
  String nullString = "";

  @Option(names = "--no-header", description = "The CSV's first line is data; columns are named column1,"
      + " column2, ... (or are the table's, in order).")
  boolean noHeader;

  @Option(names = "--sample-rows", paramLabel = "<n>",
      description = "Rows read to infer the column types (default: ${DEFAULT-VALUE}).")
  int sampleRows = 10_000;

  @Option(names = "--batch-rows", paramLabel = "<n>",
      description = "Rows parsed into memory at a time (default: ${DEFAULT-VALUE}).")
  int batchRows = 8192;

  @Option(names = "--fragment-rows", paramLabel = "<n>",
      description = "Most rows one written fragment holds (default: ${DEFAULT-VALUE}).")
  long fragmentRows = 1L << 20;

  @Option(names = "--commit-every", paramLabel = "<fragments>",
      description = "Commit after every n fragments instead of once per file (0, the default: once per file)."
          + " A failure then keeps the commits made before it; the error says how many rows they hold.")
  long commitEvery;

  @Option(names = "--config", paramLabel = "key=value",
      description = "Configuration of the table the import creates (repeatable), e.g. write.compression=none or"
          + " write.compression.level=1; refused when the table exists. A created table gets "
          + FRAME_BYTES + "=" + IMPORT_FRAME_BYTES + " (faster compression, for tables read mostly by scans)"
          + " unless this sets it: " + FRAME_BYTES + "=1024 keeps point reads cheapest.")
  Map<String, String> tableConfig = new LinkedHashMap<>();

  @Option(names = "--progress", paramLabel = "<mode>",
      description = "Progress on stderr: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}: redrawn with"
          + " rows and MB/s on a terminal, a line per tenth of the input otherwise).")
  Progress.Mode progressMode = Progress.Mode.auto;

  @Override
  void run() throws IOException {
    if (sampleRows < 1 || batchRows < 1 || fragmentRows < 1 || commitEvery < 0) {
      throw new UserException("--sample-rows, --batch-rows and --fragment-rows must be 1 or more and"
          + " --commit-every 0 or more");
    }
    long totalBytes = 0;
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        throw new UserException("file " + f + " does not exist (or is not a regular file)");
      }
      totalBytes += Files.size(f);
    }
    DatasetOptions options = options().toBuilder().maxRowsPerFragment(fragmentRows).build();
    if (System.getProperty(COMPRESSION_THREADS) == null) {
      // the table writer's thread compresses only part of each batch: on two cores it is otherwise the import's
      // bottleneck (about twice the parse thread's CPU for CSV)
      System.setProperty(COMPRESSION_THREADS, Integer.toString(Runtime.getRuntime().availableProcessors()));
    }
    Dataset ds = null;
    try {
      try {
        ds = Dataset.open(uri, options);
      } catch (TableNotFoundException e) {
        ds = null;
      }
      if (ds != null && !tableConfig.isEmpty()) {
        throw new UserException("--config sets the configuration of a table the import creates, but " + uri
            + " exists (version " + ds.version() + "); import without --config, or into a new table");
      }
      long total = 0;
      try (Progress progress = new Progress(err(), "import", totalBytes, progressMode)) {
        long before = 0;
        for (Path f : files) {
          long[] rows = new long[1];
          String name = f.getFileName().toString().toLowerCase(Locale.ROOT);
          if (name.endsWith(".arrow") || name.endsWith(".arrows") || name.endsWith(".ipc")
              || name.endsWith(".feather")) {
            ds = importArrow(ds, f, rows, options);
          } else {
            ds = importText(ds, f, name, rows, options, progress, before);
          }
          before += Files.size(f);
          progress.bytes(before, total + rows[0]);
          total += rows[0];
          progress.println("imported " + rows[0] + " rows from " + f + " -> version " + ds.version());
        }
      }
      out().println("imported " + total + " rows from " + files.size() + " file(s); table " + uri + " is at version "
          + ds.version() + " with " + ds.countRows() + " rows");
    } finally {
      if (ds != null) {
        ds.close();
      }
    }
  }

  /** The configuration of a table the import creates: {@code --config}, with {@link #IMPORT_FRAME_BYTES} unless it sets that key. */
  private Map<String, String> createConfig() {
    Map<String, String> config = new LinkedHashMap<>(tableConfig);
    config.putIfAbsent(FRAME_BYTES, IMPORT_FRAME_BYTES);
    return config;
  }

  // ------------------------------------------------------------------ CSV and JSON lines

  private ImportSource.Settings settings(String name) {
    return ImportSource.Settings.of(delimiter, quote, nullString, noHeader, sampleRows, typeOverrides, name);
  }

  private Dataset importText(Dataset ds, Path f, String name, long[] rows, DatasetOptions options,
      Progress progress, long bytesBefore) {
    Schema existing = ds == null ? null : ds.schema().toArrow();
    ImportSource source;
    if (name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt")) {
      source = new CsvSource(f, settings(name), existing);
    } else if (name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".ndjson")) {
      source = new JsonSource(f, settings(name), existing);
    } else {
      throw new UserException("cannot tell the format of " + f + " from its name; use .csv, .tsv, .jsonl,"
          + " .json, .ndjson, .arrow, .arrows, .ipc or .feather");
    }
    long committedRows = 0;
    long perCommit = commitEvery == 0 ? Long.MAX_VALUE : Math.multiplyExact(commitEvery, fragmentRows);
    List<VectorSchemaRoot> roots = new ArrayList<>();
    try (source) {
      for (int i = 0; i < ROOTS; i++) {
        VectorSchemaRoot root = VectorSchemaRoot.create(source.schema(), allocator);
        roots.add(root);
        // every root is bound here, so that a column the source cannot fill fails before anything starts
        source.bind(root);
      }
      try (Batches batches = new Batches(source, roots, progress, bytesBefore, size(f), perCommit, f)) {
        boolean first = true;
        while (first || batches.peek()) {
          batches.startChunk(perCommit);
          try {
            if (ds == null) {
              ds = Dataset.create(uri, source.schema(), batches, options, createConfig());
            } else {
              ds.append(batches);
            }
          } catch (UserException e) {
            if (committedRows > 0) {
              throw new UserException(e.getMessage() + "; the " + committedRows + " rows before it are committed"
                  + " (--commit-every), up to version " + ds.version(), e);
            }
            throw e;
          }
          committedRows = batches.rows;
          first = false;
        }
        rows[0] = batches.rows;
        return ds;
      }
    } finally {
      roots.forEach(VectorSchemaRoot::close);
    }
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      throw new UserException("cannot read " + f + ": " + e.getMessage(), e);
    }
  }

  /**
   * The source's batches as the table writer reads them, parsed ahead on a thread of their own: while the
   * writer (on the caller's thread) writes batch N into its fragment, the parser fills batch N+1 and on into
   * the other roots. {@link #ROOTS} roots circulate through two queues (free, filled), so at most that many
   * batches are in memory. A chunk ends after {@code perCommit} rows so that each commit holds whole fragments.
   *
   * <p>A failure of the parser reaches the writer in order, as the next batch would have (the same exception,
   * so the same message); the writer then fails as it did when parsing ran on its thread, and publishes
   * nothing. A failure of the writer, or any early end, reaches the parser through {@link #close}, which
   * stops it and waits for it before the roots and the source are closed.
   */
  private final class Batches implements Iterable<VectorSchemaRoot>, Iterator<VectorSchemaRoot>, AutoCloseable {
    private static final Object END = new Object();

    /** What the parser threw, handed to the writer in place of a batch. */
    private record Failure(Throwable error) {}

    private final BlockingQueue<VectorSchemaRoot> free;
    /** Filled roots, then {@link #END} or a {@link Failure}: at most every root and one marker. */
    private final BlockingQueue<Object> filled;
    private final Thread parser;
    private volatile boolean stopped;
    /** The root last returned by next(): the writer's until it asks for the next one. */
    private VectorSchemaRoot current;
    private VectorSchemaRoot pending;
    private boolean ended;
    private long chunkRows;
    private long chunkLimit;
    /** Rows handed to the writer. */
    long rows;

    Batches(ImportSource source, List<VectorSchemaRoot> roots, Progress progress, long bytesBefore,
        long fileSize, long perCommit, Path file) {
      this.free = new ArrayBlockingQueue<>(roots.size(), false, roots);
      this.filled = new ArrayBlockingQueue<>(roots.size() + 1);
      this.parser = new Thread(() -> parse(source, progress, bytesBefore, fileSize, perCommit),
          "quiver-import-parse " + file.getFileName());
      parser.setDaemon(true);
      parser.start();
    }

    /** The parser thread: fills free roots in file order, batches never crossing a chunk's end. */
    private void parse(ImportSource source, Progress progress, long bytesBefore, long fileSize, long perCommit) {
      long produced = 0;
      long inChunk = 0;
      try {
        while (!stopped) {
          VectorSchemaRoot root = free.take();
          source.bind(root);
          int n = source.fill((int) Math.min(batchRows, perCommit - inChunk));
          if (n == 0) {
            filled.put(END);
            return;
          }
          inChunk += n;
          if (inChunk == perCommit) {
            inChunk = 0;
          }
          produced += n;
          // the reader runs ahead of the parser by its buffer: the file is done when the rows are
          progress.bytes(bytesBefore + Math.min(source.bytesRead(), fileSize - 1), produced);
          filled.put(root);
        }
      } catch (InterruptedException e) {
        // stopped by close()
      } catch (Throwable e) {
        if (!stopped) {
          // never blocks: the queue has room for every root and one marker
          filled.offer(new Failure(e));
        }
      }
    }

    void startChunk(long limit) {
      chunkLimit = limit;
      chunkRows = 0;
    }

    /** Whether more rows follow (takes the next batch, which the next chunk's first hasNext returns). */
    boolean peek() {
      if (pending == null && !ended) {
        takeNext();
      }
      return pending != null;
    }

    /** Hands the writer's last root back to the parser and takes the next filled one (or the end). */
    private void takeNext() {
      if (current != null) {
        free.add(current);
        current = null;
      }
      Object next;
      try {
        next = filled.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UserException("import interrupted", e);
      }
      if (next == END) {
        ended = true;
      } else if (next instanceof Failure failure) {
        ended = true;
        Throwable e = failure.error();
        if (e instanceof RuntimeException r) {
          throw r;
        }
        if (e instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(e);
      } else {
        pending = (VectorSchemaRoot) next;
      }
    }

    @Override
    public Iterator<VectorSchemaRoot> iterator() {
      return this;
    }

    @Override
    public boolean hasNext() {
      if (pending != null) {
        return true;
      }
      if (ended || chunkRows >= chunkLimit) {
        return false;
      }
      takeNext();
      return pending != null;
    }

    @Override
    public VectorSchemaRoot next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      current = pending;
      pending = null;
      chunkRows += current.getRowCount();
      rows += current.getRowCount();
      return current;
    }

    /** Stops the parser (if it is still running) and waits for it: after this, no thread touches a root. */
    @Override
    public void close() {
      stopped = true;
      parser.interrupt();
      boolean interrupted = false;
      while (true) {
        try {
          parser.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ------------------------------------------------------------------ Arrow IPC

  private Dataset importArrow(Dataset ds, Path f, long[] rows, DatasetOptions options) throws IOException {
    byte[] magic = new byte[6];
    try (InputStream in = Files.newInputStream(f)) {
      int n = in.readNBytes(magic, 0, 6);
      boolean fileFormat = n == 6 && new String(magic, StandardCharsets.US_ASCII).equals("ARROW1");
      try (var channel = Files.newByteChannel(f);
          ArrowReader reader = fileFormat ? new ArrowFileReader(channel, allocator, Decompression.INSTANCE)
              : new ArrowStreamReader(Files.newInputStream(f), allocator, Decompression.INSTANCE)) {
        if (ds == null) {
          Dataset created = Dataset.create(uri, reader.getVectorSchemaRoot().getSchema(), batches(reader), options,
              createConfig());
          rows[0] = created.countRows();
          return created;
        }
        long before = ds.countRows();
        ds.append(batches(reader));
        rows[0] = ds.countRows() - before;
        return ds;
      } catch (IOException | RuntimeException e) {
        if (e instanceof io.quiver.exceptions.QuiverException) {
          throw e;
        }
        Throwable damaged = e;
        while (damaged != null && !(damaged instanceof Decompression.Damaged)) {
          damaged = damaged.getCause();
        }
        throw new UserException("cannot read Arrow IPC file " + f + ": "
            + (damaged != null ? damaged.getMessage() : e.getMessage()), e);
      }
    }
  }

  /**
   * The codecs of compressed record batches (body compression ZSTD or LZ4_FRAME, the two the Arrow format
   * has), given to the readers explicitly rather than found by Arrow's service lookup; a buffer that does
   * not decompress is reported as such, with its codec.
   */
  static final class Decompression implements CompressionCodec.Factory {
    static final Decompression INSTANCE = new Decompression();

    /** A compressed buffer that does not decompress (the file is damaged). */
    static final class Damaged extends RuntimeException {
      private static final long serialVersionUID = 1L;

      Damaged(CompressionUtil.CodecType codec, RuntimeException cause) {
        super("a " + codec + "-compressed buffer does not decompress (" + ImportSource.rootMessage(cause)
            + "); the file is damaged: write it again", cause);
      }
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType type) {
      return checked(CommonsCompressionFactory.INSTANCE.createCodec(type));
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType type, int level) {
      return checked(CommonsCompressionFactory.INSTANCE.createCodec(type, level));
    }

    private static CompressionCodec checked(CompressionCodec codec) {
      return new CompressionCodec() {
        @Override
        public ArrowBuf compress(BufferAllocator allocator, ArrowBuf buffer) {
          return codec.compress(allocator, buffer);
        }

        @Override
        public ArrowBuf decompress(BufferAllocator allocator, ArrowBuf buffer) {
          try {
            return codec.decompress(allocator, buffer);
          } catch (RuntimeException e) {
            throw new Damaged(codec.getCodecType(), e);
          }
        }

        @Override
        public CompressionUtil.CodecType getCodecType() {
          return codec.getCodecType();
        }
      };
    }
  }

  /** The reader's batches, read once, lazily; each root is the reader's own and valid until the next. */
  private static Iterable<VectorSchemaRoot> batches(ArrowReader reader) {
    return () -> new Iterator<>() {
      private Boolean ready;

      @Override
      public boolean hasNext() {
        if (ready == null) {
          try {
            ready = reader.loadNextBatch();
          } catch (IOException e) {
            throw new UncheckedIOException("could not read the Arrow stream: " + e.getMessage(), e);
          }
        }
        return ready;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        ready = null;
        try {
          return reader.getVectorSchemaRoot();
        } catch (IOException e) {
          throw new UncheckedIOException("could not read the Arrow stream: " + e.getMessage(), e);
        }
      }
    };
  }
}
