package io.quiver.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.Scanner;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver export}: rows of a version, filtered and projected, streamed batch by batch into a CSV,
 * JSON lines or Arrow IPC file. The file appears only when the export is complete (written beside it under
 * a temporary name, then renamed). What import reads back, cell for cell: CSV nulls are empty unquoted
 * cells (an empty string is {@code ""}), binary is hexadecimal, dates and timestamps ISO-8601; JSON keeps
 * structs as objects and lists as arrays.
 */
@Command(name = "export",
    description = "Writes rows to a CSV (.csv, .tsv), JSON lines (.jsonl, .json, .ndjson) or Arrow IPC (.arrow,"
        + " .ipc, .feather; .arrows for the stream format) file, streaming.",
    footer = "%nExample: quiver export /tmp/t out.csv --columns id,name --where \"id > 5\"")
final class ExportCommand extends TableCommand {
  enum Format { csv, jsonl, arrow, arrows }

  @Parameters(index = "1", paramLabel = "<file>", description = "The file to write.")
  Path file;

  @Option(names = {"-c", "--columns"}, split = ",", paramLabel = "<col>",
      description = "Columns to write (default: all).")
  List<String> columns;

  @Option(names = {"-w", "--where"}, paramLabel = "<condition>", description = "Filter, as scan's --where.")
  String where;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = "--version", paramLabel = "<n>", description = "Read this version (default: latest).")
  Long version;

  @Option(names = "--tag", paramLabel = "<name>", description = "Read the version this tag names.")
  String tag;

  @Option(names = {"-f", "--format"},
      description = "${COMPLETION-CANDIDATES} (default: from the file name's extension).")
  Format format;

  @Option(names = "--delimiter", paramLabel = "<char>", description = "CSV delimiter (default: , and tab for .tsv).")
  String delimiter;

  @Option(names = "--null", paramLabel = "<string>", description = "CSV text of a null cell (default: empty).")
  String nullString = "";

  @Option(names = "--no-header", description = "Write no CSV header line.")
  boolean noHeader;

  @Option(names = "--force", description = "Replace the file if it exists.")
  boolean force;

  @Option(names = "--progress", paramLabel = "<mode>",
      description = "Progress on stderr: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Progress.Mode progressMode = Progress.Mode.auto;

  @Override
  void run() throws IOException {
    if (version != null && tag != null) {
      throw new UserException("give --version or --tag, not both");
    }
    Format fmt = format != null ? format : formatOf(file);
    if (Files.exists(file) && !force) {
      throw new UserException(file + " exists; pass --force to replace it");
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new UserException("directory of " + file + " does not exist");
    }
    try (Dataset latest = open();
        Dataset ds = version != null ? latest.checkout(version) : tag != null ? latest.checkout(tag)
            : latest.checkout(latest.version())) {
      List<String> output = columns != null ? columns
          : ds.schema().fields().stream().map(io.quiver.schema.Field::name).toList();
      for (String c : output) {
        if (ds.schema().findField(c).isEmpty()) {
          throw new UserException("unknown column '" + c + "'; columns are "
              + ds.schema().fields().stream().map(io.quiver.schema.Field::name).toList());
        }
      }
      Scanner scanner = ds.newScan().columns(output);
      if (where != null) {
        scanner.filter(WhereParser.parse(where, ds.schema()));
      }
      Path temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".part");
      long rows = 0;
      try (Progress progress = new Progress(err(), "export", 0, progressMode)) {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16);
            ArrowReader reader = scanner.open()) {
          try (Sink sink = switch (fmt) {
            case csv -> new Csv(out, output, separator());
            case jsonl -> new Json(out, output);
            case arrow, arrows -> new Ipc(out, reader.getVectorSchemaRoot(), fmt == Format.arrows);
          }) {
            while (reader.loadNextBatch()) {
              VectorSchemaRoot root = reader.getVectorSchemaRoot();
              sink.batch(root, output);
              rows += root.getRowCount();
              progress.rows(rows);
            }
            sink.finish();
          }
        }
        try {
          Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
      out().println("exported " + rows + " rows of version " + ds.version() + " to " + file + " ("
          + Progress.mb(Files.size(file)) + " MB)");
    }
  }

  private char separator() {
    if (delimiter == null) {
      return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".tsv") ? '\t' : ',';
    }
    if (delimiter.equals("\\t") || delimiter.equalsIgnoreCase("tab")) {
      return '\t';
    }
    if (delimiter.length() != 1 || delimiter.equals("\"")) {
      throw new UserException("--delimiter must be one character other than the quote (or tab), got '"
          + delimiter + "'");
    }
    return delimiter.charAt(0);
  }

  static Format formatOf(Path f) {
    String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
    if (n.endsWith(".csv") || n.endsWith(".tsv") || n.endsWith(".txt")) {
      return Format.csv;
    }
    if (n.endsWith(".jsonl") || n.endsWith(".json") || n.endsWith(".ndjson")) {
      return Format.jsonl;
    }
    if (n.endsWith(".arrow") || n.endsWith(".ipc") || n.endsWith(".feather")) {
      return Format.arrow;
    }
    if (n.endsWith(".arrows")) {
      return Format.arrows;
    }
    throw new UserException("cannot tell the format of " + f + " from its name; pass --format csv, jsonl, arrow"
        + " or arrows");
  }

  private interface Sink extends AutoCloseable {
    void batch(VectorSchemaRoot root, List<String> columns) throws IOException;

    void finish() throws IOException;

    @Override
    default void close() {}
  }

  // ------------------------------------------------------------------ CSV

  private final class Csv implements Sink {
    private final Writer w;
    private final char sep;
    private final JsonFactory json = new JsonFactory();

    Csv(OutputStream out, List<String> names, char sep) throws IOException {
      this.w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
      this.sep = sep;
      if (!noHeader) {
        for (int c = 0; c < names.size(); c++) {
          if (c > 0) {
            w.write(sep);
          }
          cell(names.get(c), true);
        }
        w.write('\n');
      }
    }

    @Override
    public void batch(VectorSchemaRoot root, List<String> names) throws IOException {
      FieldVector[] vs = names.stream().map(root::getVector).toArray(FieldVector[]::new);
      int n = root.getRowCount();
      for (int i = 0; i < n; i++) {
        for (int c = 0; c < vs.length; c++) {
          if (c > 0) {
            w.write(sep);
          }
          FieldVector v = vs[c];
          if (v.isNull(i)) {
            w.write(nullString);
          } else if (v instanceof BigIntVector b) {
            w.write(Long.toString(b.get(i)));
          } else if (v instanceof IntVector b) {
            w.write(Integer.toString(b.get(i)));
          } else if (v instanceof Float8Vector b) {
            w.write(Double.toString(b.get(i)));
          } else if (v instanceof VarCharVector s) {
            cell(new String(s.get(i), StandardCharsets.UTF_8), true);
          } else if (v instanceof VarBinaryVector) {
            cell(String.valueOf(Table.value(v, i)), true);
          } else if (v instanceof StructVector || v instanceof ListVector) {
            java.io.StringWriter text = new java.io.StringWriter();
            try (JsonGenerator g = json.createGenerator(text)) {
              Json.value(g, v, i);
            }
            cell(text.toString(), false);
          } else {
            cell(String.valueOf(Table.value(v, i)), false);
          }
        }
        w.write('\n');
      }
    }

    /** Quotes a cell that holds the delimiter, a quote, a line break, or (text) could read back as null. */
    private void cell(String s, boolean text) throws IOException {
      boolean quote = text && (s.equals(nullString) || s.isEmpty());
      for (int i = 0; i < s.length() && !quote; i++) {
        char ch = s.charAt(i);
        quote = ch == sep || ch == '"' || ch == '\n' || ch == '\r';
      }
      if (!quote) {
        w.write(s);
        return;
      }
      w.write('"');
      w.write(s.replace("\"", "\"\""));
      w.write('"');
    }

    @Override
    public void finish() throws IOException {
      w.flush();
    }
  }

  // ------------------------------------------------------------------ JSON lines

  static final class Json implements Sink {
    private final OutputStream out;
    private final JsonGenerator g;

    Json(OutputStream out, List<String> names) throws IOException {
      this.out = out;
      this.g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
      g.setRootValueSeparator(null);
    }

    @Override
    public void batch(VectorSchemaRoot root, List<String> names) throws IOException {
      FieldVector[] vs = names.stream().map(root::getVector).toArray(FieldVector[]::new);
      int n = root.getRowCount();
      for (int i = 0; i < n; i++) {
        g.writeStartObject();
        for (int c = 0; c < vs.length; c++) {
          g.writeFieldName(names.get(c));
          value(g, vs[c], i);
        }
        g.writeEndObject();
        g.writeRaw('\n');
      }
    }

    static void value(JsonGenerator g, FieldVector v, int i) throws IOException {
      if (v.isNull(i)) {
        g.writeNull();
      } else if (v instanceof StructVector s) {
        g.writeStartObject();
        for (FieldVector child : s.getChildrenFromFields()) {
          g.writeFieldName(child.getName());
          value(g, child, i);
        }
        g.writeEndObject();
      } else if (v instanceof ListVector l) {
        g.writeStartArray();
        int start = l.getElementStartIndex(i);
        int end = l.getElementEndIndex(i);
        FieldVector items = l.getDataVector();
        for (int k = start; k < end; k++) {
          value(g, items, k);
        }
        g.writeEndArray();
      } else if (v instanceof BigIntVector b) {
        g.writeNumber(b.get(i));
      } else if (v instanceof IntVector b) {
        g.writeNumber(b.get(i));
      } else if (v instanceof SmallIntVector b) {
        g.writeNumber(b.get(i));
      } else if (v instanceof TinyIntVector b) {
        g.writeNumber(b.get(i));
      } else if (v instanceof Float8Vector b) {
        double d = b.get(i);
        if (Double.isFinite(d)) {
          g.writeNumber(d);
        } else {
          g.writeString(Double.toString(d));
        }
      } else if (v instanceof Float4Vector b) {
        float f = b.get(i);
        if (Float.isFinite(f)) {
          g.writeNumber(f);
        } else {
          g.writeString(Float.toString(f));
        }
      } else if (v instanceof BitVector b) {
        g.writeBoolean(b.get(i) != 0);
      } else if (v instanceof DecimalVector d) {
        BigDecimal x = d.getObject(i);
        g.writeNumber(x);
      } else if (v instanceof VarCharVector s) {
        byte[] bytes = s.get(i);
        g.writeUTF8String(bytes, 0, bytes.length);
      } else {
        g.writeString(String.valueOf(Table.value(v, i)));
      }
    }

    @Override
    public void finish() throws IOException {
      g.flush();
      out.flush();
    }
  }

  // ------------------------------------------------------------------ Arrow IPC

  private final class Ipc implements Sink {
    private final VectorSchemaRoot copy;
    private final ArrowWriter writer;
    private final VectorLoader loader;

    Ipc(OutputStream out, VectorSchemaRoot like, boolean stream) throws IOException {
      copy = VectorSchemaRoot.create(like.getSchema(), allocator);
      writer = stream ? new ArrowStreamWriter(copy, null, Channels.newChannel(out))
          : new ArrowFileWriter(copy, null, Channels.newChannel(out));
      loader = new VectorLoader(copy);
      writer.start();
    }

    @Override
    public void batch(VectorSchemaRoot root, List<String> columns) throws IOException {
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        loader.load(batch);
      }
      writer.writeBatch();
    }

    @Override
    public void finish() throws IOException {
      writer.end();
    }

    @Override
    public void close() {
      try {
        writer.close();
      } finally {
        copy.close();
      }
    }
  }
}
