package io.quiver.cli;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.MergeInsert;
import io.quiver.dataset.MergeInsertResult;
import io.quiver.exceptions.QuiverException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver merge}: an upsert by key ({@link Dataset#mergeInsert}, docs/merge-insert.md) from a CSV, JSON
 * lines or Arrow IPC file. Rows whose key is in the table update it (the cells of the file's non-key columns),
 * the others are inserted; {@code --when-*} choose other clauses. One commit, retried on a concurrent change
 * from the same parsed rows.
 *
 * <p>Values are read in the table's types (no inference): a CSV brings the columns of its header (a column the
 * file does not have keeps its value in updated rows and is null in inserted ones); a JSON lines file brings
 * every column of the table (a key absent from an object is null); an Arrow file brings the columns of its
 * schema, which must have the table's types.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "Upserts the rows of a CSV (.csv, .tsv), JSON lines (.jsonl, .json, .ndjson) or Arrow IPC"
        + " (.arrow, .arrows, .ipc, .feather) file by key: rows whose key is in the table update it, the others"
        + " are inserted (or, with --when-*, other clauses). One commit; values in the table's types.",
    footer = {"%nA null key never matches (the row is inserted); a key twice in the file is refused, naming it;"
        + " nothing is committed on any error. A concurrent commit that conflicts makes the merge run again on the"
        + " new version (--max-attempts in all), then exit 2.",
        "%nExample: quiver merge /tmp/people changes.csv --on id",
        "%nExample: quiver merge /tmp/people snapshot.jsonl --on id --when-not-matched-by-source delete"})
final class MergeCommand extends TableCommand {
  enum WhenMatched { update, nothing, fail }

  enum WhenNotMatched { insert, nothing }

  enum WhenNotMatchedBySource { keep, delete }

  @Parameters(index = "1", paramLabel = "<file>")
  Path file;

  @Option(names = "--on", required = true, split = ",", paramLabel = "<column>",
      description = "Key column(s), comma-separated; a struct member as a dotted path (s.x).")
  List<String> on;

  @Option(names = "--when-matched", paramLabel = "<action>",
      description = "For a table row whose key the file has: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  WhenMatched whenMatched = WhenMatched.update;

  @Option(names = "--when-not-matched", paramLabel = "<action>",
      description = "For a file row whose key the table lacks: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  WhenNotMatched whenNotMatched = WhenNotMatched.insert;

  @Option(names = "--when-not-matched-by-source", paramLabel = "<action>",
      description = "For a table row whose key the file lacks: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})."
          + " delete makes the table hold exactly the file's keys.")
  WhenNotMatchedBySource whenNotMatchedBySource = WhenNotMatchedBySource.keep;

  @Option(names = "--max-attempts", paramLabel = "<n>",
      description = "Attempts in all when concurrent commits conflict (default: ${DEFAULT-VALUE}).")
  int maxAttempts = MergeInsert.DEFAULT_MAX_ATTEMPTS;

  @Option(names = "--delimiter", paramLabel = "<char>",
      description = "CSV field delimiter: one ASCII character, or tab (default: , and tab for .tsv).")
  String delimiter;

  @Option(names = "--quote", paramLabel = "<char>", description = "CSV quote character, ASCII (default: \").")
  char quote = '"';

  @Option(names = "--null", paramLabel = "<string>",
      description = "CSV cell text that means null (default: the empty cell).")
  String nullString = "";

  @Option(names = "--no-header", description = "The CSV's first line is data; its columns are the table's, in"
      + " order.")
  boolean noHeader;

  @Option(names = "--batch-rows", paramLabel = "<n>",
      description = "Rows parsed into memory at a time (default: ${DEFAULT-VALUE}).")
  int batchRows = 8192;

  @Override
  void run() throws IOException {
    if (maxAttempts < 1 || batchRows < 1) {
      throw new UserException("--max-attempts and --batch-rows must be 1 or more");
    }
    if (!Files.isRegularFile(file)) {
      throw new UserException("file " + file + " does not exist (or is not a regular file)");
    }
    try (Dataset ds = open()) {
      MergeInsert merge = ds.mergeInsert(on.toArray(String[]::new)).maxAttempts(maxAttempts);
      switch (whenMatched) {
        case update -> merge.whenMatchedUpdateAll();
        case nothing -> merge.whenMatchedDoNothing();
        case fail -> merge.whenMatchedFail();
      }
      switch (whenNotMatched) {
        case insert -> merge.whenNotMatchedInsertAll();
        case nothing -> merge.whenNotMatchedDoNothing();
      }
      switch (whenNotMatchedBySource) {
        case keep -> merge.whenNotMatchedBySourceKeep();
        case delete -> merge.whenNotMatchedBySourceDelete();
      }
      MergeInsertResult r;
      try (ArrowReader source = source(ds.schema().toArrow())) {
        r = merge.execute(source);
      } catch (QuiverException | UserException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new UserException("cannot read " + file + ": " + ImportSource.rootMessage(e), e);
      }
      out().println("merged " + file + " on " + String.join(",", on) + ": " + r.rowsInserted() + " inserted, "
          + r.rowsUpdated() + " updated, " + r.rowsDeleted() + " deleted; version " + r.version()
          + (r.attempts() > 1 ? " (after " + r.attempts() + " attempts)" : ""));
    }
  }

  /** The file's rows as an Arrow reader, in the table's types. */
  private ArrowReader source(Schema table) throws IOException {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".arrow") || name.endsWith(".arrows") || name.endsWith(".ipc") || name.endsWith(".feather")) {
      byte[] magic = new byte[6];
      int n;
      try (InputStream in = Files.newInputStream(file)) {
        n = in.readNBytes(magic, 0, 6);
      }
      boolean fileFormat = n == 6 && new String(magic, StandardCharsets.US_ASCII).equals("ARROW1");
      return fileFormat
          ? new ArrowFileReader(Files.newByteChannel(file), allocator, ImportCommand.Decompression.INSTANCE)
          : new ArrowStreamReader(Files.newInputStream(file), allocator, ImportCommand.Decompression.INSTANCE);
    }
    ImportSource.Settings settings = settings(name);
    ImportSource src;
    if (name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt")) {
      src = new CsvSource(file, settings, noHeader ? table : csvColumns(table, settings));
    } else if (name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".ndjson")) {
      src = new JsonSource(file, settings, table);
    } else {
      throw new UserException("cannot tell the format of " + file + " from its name; use .csv, .tsv, .jsonl,"
          + " .json, .ndjson, .arrow, .arrows, .ipc or .feather");
    }
    return new SourceReader(src, allocator, batchRows);
  }

  /**
   * The table's fields the CSV's header names, in the table's order: a column the file does not have is left
   * out of the merge (kept in matched rows), rather than read as null.
   */
  private Schema csvColumns(Schema table, ImportSource.Settings settings) {
    List<String> header;
    try (CsvSource probe = new CsvSource(file, settings, table)) {
      header = probe.header();
    }
    List<Field> fields = new ArrayList<>();
    for (Field f : table.getFields()) {
      if (header.contains(f.getName())) {
        fields.add(f);
      }
    }
    return new Schema(fields, table.getCustomMetadata());
  }

  private ImportSource.Settings settings(String name) {
    return ImportSource.Settings.of(delimiter, quote, nullString, noHeader, 1, Map.of(), name);
  }

  /**
   * A parsed file as an {@link ArrowReader}: each {@link #loadNextBatch} refills the reader's root from the
   * source (at most {@code batchRows} rows).
   */
  static final class SourceReader extends ArrowReader {
    private final ImportSource source;
    private final int batchRows;
    private boolean bound;

    SourceReader(ImportSource source, BufferAllocator allocator, int batchRows) {
      super(allocator);
      this.source = source;
      this.batchRows = batchRows;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      VectorSchemaRoot root = getVectorSchemaRoot();
      if (!bound) {
        source.bind(root);
        bound = true;
      }
      int n = source.fill(batchRows);
      root.setRowCount(n);
      return n > 0;
    }

    @Override
    public long bytesRead() {
      return source.bytesRead();
    }

    @Override
    protected void closeReadSource() {
      source.close();
    }

    @Override
    protected Schema readSchema() {
      return source.schema();
    }
  }
}
