package io.quiver.cli;

import de.siegmar.fastcsv.reader.AbstractBaseCsvCallbackHandler;
import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackInputStream;
import java.io.RandomAccessFile;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A CSV file read with FastCSV's callback parser: cells arrive as character ranges and are parsed
 * straight into the Arrow vectors, without a String or a record object per cell. Types are inferred from
 * the first {@code sampleRows} rows (read in a first, short pass) unless {@code --type} or an existing
 * table gives them.
 */
final class CsvSource implements ImportSource {
  private static final Object RECORD = new Object();

  private final Path file;
  private final Settings settings;
  private final List<String> header;
  private final Schema schema;
  /** Per top-level column: where its type came from. */
  private final Origins origins;
  private final Cursor data;
  private ColumnWriter[] byFileColumn;
  private ColumnWriter[] absent;
  private VectorSchemaRoot root;

  CsvSource(Path file, Settings settings, Schema existing) {
    this.file = file;
    this.settings = settings;
    Sample sample = null;
    try (Cursor first = new Cursor(open(file), false)) {
      this.header = readHeader(first);
      for (String col : settings.types().keySet()) {
        if (!header.contains(col)) {
          throw new UserException("--type names unknown column '" + col + "'; " + file + " has columns " + header);
        }
      }
      if (existing != null) {
        for (String name : header) {
          if (existing.getFields().stream().noneMatch(x -> x.getName().equals(name))) {
            throw new UserException(file + " has column '" + name + "' that the table does not have; table"
                + " columns are " + existing.getFields().stream().map(Field::getName).toList());
          }
        }
      } else {
        sample = new Sample(header.size());
        if (!settings.header()) {
          // the first line was data
          for (int c = 0; c < firstLine.size(); c++) {
            String cell = firstLine.get(c);
            if (!cell.equals(settings.nullString())) {
              sample.add(c, cell.toCharArray(), 0, cell.length());
            }
          }
        }
        first.handler.mode = Mode.SAMPLE;
        first.handler.sample = sample;
        for (int i = settings.header() ? 0 : 1; i < settings.sampleRows() && first.next(); i++) {
          // the handler classifies the cells
        }
      }
    }
    if (existing != null) {
      this.schema = existing;
      this.origins = Origins.table();
    } else {
      List<Field> fields = new ArrayList<>();
      for (int c = 0; c < header.size(); c++) {
        String name = header.get(c);
        String given = settings.types().get(name);
        ArrowType type = given != null ? Types.parse(given) : sample.type(c);
        fields.add(new Field(name, FieldType.nullable(type), null));
      }
      this.schema = new Schema(fields);
      this.origins = Origins.of(settings.types().keySet(), settings.sampleRows());
    }
    this.data = new Cursor(open(file), true);
    if (settings.header()) {
      data.handler.mode = Mode.HEADER;
      data.handler.names = new ArrayList<>();
      try {
        data.next();
      } catch (RuntimeException e) {
        data.close();
        throw e;
      }
      data.handler.names = null;
    }
    data.handler.columns = header.size();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The writers of each root bound so far (the import alternates between two). */
  private final Map<VectorSchemaRoot, ColumnWriter[][]> bound = new IdentityHashMap<>();

  @Override
  public void bind(VectorSchemaRoot root) {
    this.root = root;
    ColumnWriter[][] known = bound.get(root);
    if (known != null) {
      byFileColumn = known[0];
      absent = known[1];
      return;
    }
    byFileColumn = new ColumnWriter[header.size()];
    Set<String> inFile = new HashSet<>(header);
    List<ColumnWriter> missing = new ArrayList<>();
    for (FieldVector v : root.getFieldVectors()) {
      ColumnWriter w = ColumnWriter.of(v, v.getName());
      int i = header.indexOf(v.getName());
      if (i >= 0) {
        if (w instanceof ColumnWriter.Struct || w instanceof ColumnWriter.Items) {
          throw new UserException("column '" + v.getName() + "' is a " + Types.name(v.getField().getType())
              + "; CSV cannot fill it (import JSON lines or Arrow IPC)");
        }
        byFileColumn[i] = w;
      } else if (!inFile.contains(v.getName())) {
        missing.add(w);
      }
    }
    absent = missing.toArray(ColumnWriter[]::new);
    bound.put(root, new ColumnWriter[][] {byFileColumn, absent});
  }

  @Override
  public int fill(int maxRows) {
    for (FieldVector v : root.getFieldVectors()) {
      v.reset();
    }
    Handler h = data.handler;
    h.mode = Mode.DATA;
    h.writers = byFileColumn;
    int n = 0;
    while (n < maxRows) {
      h.row = n;
      h.badColumn = -1;
      if (!data.next()) {
        break;
      }
      if (h.badColumn >= 0) {
        ColumnWriter w = byFileColumn[h.badColumn];
        throw origins.badValue(file, h.line(), w, h.badValue);
      }
      for (ColumnWriter w : absent) {
        if (!w.vector.getField().isNullable()) {
          throw new UserException(file + " line " + h.line() + ": column '" + w.path
              + "' is not nullable in the table but the file has no such column");
        }
        w.nul(n);
      }
      n++;
    }
    root.setRowCount(n);
    return n;
  }

  @Override
  public long bytesRead() {
    return data.in.count();
  }

  @Override
  public void close() {
    data.close();
  }

  // ------------------------------------------------------------------ opening

  private final class Cursor implements AutoCloseable {
    final Counting in;
    final Handler handler = new Handler();
    final CsvReader<Object> reader;
    final Iterator<Object> records;

    /** A cursor over the file; {@code ahead}: decoded on a thread of its own (the data pass, not the sample). */
    Cursor(Counting in, boolean ahead) {
      this.in = in;
      Reader chars = ahead ? new DecodingReader(skipBom(in), file.getFileName().toString())
          : new InputStreamReader(skipBom(in), StandardCharsets.UTF_8.newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
      handler.columns = Integer.MAX_VALUE;
      reader = CsvReader.builder().fieldSeparator(settings.delimiter()).quoteCharacter(settings.quote())
          .skipEmptyLines(true).allowExtraFields(true).allowMissingFields(true).build(handler, chars);
      records = reader.iterator();
    }

    /** The next record through the handler; false at the end of the file. Malformed input is a UserException. */
    boolean next() {
      handler.fields = 0;
      boolean more;
      try {
        more = records.hasNext();
        if (more) {
          records.next();
        }
      } catch (UncheckedIOException | CsvParseException e) {
        if (ImportSource.isDecodingError(e)) {
          throw ImportSource.notUtf8(file);
        }
        if (e instanceof UncheckedIOException) {
          throw new UserException("cannot read " + file + ": " + ImportSource.rootMessage(e), e);
        }
        throw new UserException(file + " line " + handler.line() + ": malformed CSV: "
            + ImportSource.rootMessage(e));
      }
      if (!more) {
        if (handler.lastQuoted && !endsWithQuote(file, settings.quote())) {
          throw new UserException(file + " line " + handler.line() + ": malformed CSV: a quoted field is not"
              + " closed before the end of the file");
        }
        return false;
      }
      if (handler.columns != Integer.MAX_VALUE && handler.fields != handler.columns) {
        throw new UserException(file + " line " + handler.line() + ": expected " + handler.columns + " values ("
            + header + "), found " + handler.fields);
      }
      return true;
    }

    @Override
    public void close() {
      try {
        reader.close();
      } catch (IOException e) {
        // read-only; nothing to lose
      }
    }
  }

  private static Counting open(Path f) {
    try {
      return new Counting(Files.newInputStream(f));
    } catch (IOException e) {
      throw new UserException("cannot read " + f + ": " + e.getMessage(), e);
    }
  }

  /** Skips a UTF-8 byte-order mark. */
  private static InputStream skipBom(InputStream in) {
    PushbackInputStream p = new PushbackInputStream(in, 3);
    try {
      byte[] b = new byte[3];
      int n = p.readNBytes(b, 0, 3);
      if (!(n == 3 && (b[0] & 0xFF) == 0xEF && (b[1] & 0xFF) == 0xBB && (b[2] & 0xFF) == 0xBF) && n > 0) {
        p.unread(b, 0, n);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** Whether the file's last character other than line breaks is the quote (so the last quoted field closed). */
  private static boolean endsWithQuote(Path f, char quote) {
    try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
      for (long pos = r.length() - 1; pos >= 0; pos--) {
        r.seek(pos);
        int b = r.read();
        if (b != '\n' && b != '\r') {
          return b == quote;
        }
      }
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** The first line's cells, as read by {@link #readHeader}. */
  private List<String> firstLine;

  private List<String> readHeader(Cursor c) {
    Handler h = c.handler;
    h.mode = Mode.HEADER;
    h.names = new ArrayList<>();
    if (!c.next()) {
      throw new UserException(file + " is empty" + (settings.header() ? "; the first line must name the columns"
          : ""));
    }
    List<String> names = h.names;
    h.names = null;
    firstLine = names;
    h.columns = names.size();
    if (!settings.header()) {
      List<String> generated = new ArrayList<>();
      for (int i = 1; i <= names.size(); i++) {
        generated.add("column" + i);
      }
      return generated;
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      if (n.isBlank()) {
        throw new UserException(file + " line 1: column " + (i + 1) + " has no name; name it in the header, or"
            + " pass --no-header if the first line is data");
      }
      if (!seen.add(n)) {
        throw new UserException(file + " line 1: column '" + n + "' appears twice in the header");
      }
    }
    return names;
  }

  /** Per-column type candidates over the sample's non-null cells. */
  static final class Sample {
    final boolean[] bool;
    final boolean[] integer;
    final boolean[] floating;
    final boolean[] date;
    final boolean[] timestamp;
    final boolean[] any;

    Sample(int n) {
      bool = filled(n);
      integer = filled(n);
      floating = filled(n);
      date = filled(n);
      timestamp = filled(n);
      any = new boolean[n];
    }

    private static boolean[] filled(int n) {
      boolean[] b = new boolean[n];
      java.util.Arrays.fill(b, true);
      return b;
    }

    void add(int c, char[] buf, int off, int len) {
      any[c] = true;
      int end = off + len;
      if (bool[c]) {
        bool[c] = ColumnWriter.isBool(buf, off, end);
      }
      if (integer[c]) {
        try {
          ColumnWriter.parseLong(buf, off, end);
        } catch (NumberFormatException e) {
          integer[c] = false;
        }
      }
      if (floating[c]) {
        floating[c] = ColumnWriter.isDouble(buf, off, len);
      }
      if (date[c]) {
        try {
          ColumnWriter.parseDate(buf, off, end);
        } catch (DateTimeException e) {
          date[c] = false;
        }
      }
      if (timestamp[c]) {
        try {
          ColumnWriter.parseTimestampMicros(buf, off, end);
        } catch (DateTimeException | ArithmeticException e) {
          timestamp[c] = false;
        }
      }
    }

    ArrowType type(int c) {
      if (!any[c]) {
        return ArrowType.Utf8.INSTANCE;
      }
      if (bool[c]) {
        return ArrowType.Bool.INSTANCE;
      }
      if (integer[c]) {
        return Types.parse("int64");
      }
      if (floating[c]) {
        return Types.parse("float64");
      }
      if (date[c]) {
        return Types.parse("date");
      }
      if (timestamp[c]) {
        return Types.parse("timestamp");
      }
      return ArrowType.Utf8.INSTANCE;
    }
  }

  // ------------------------------------------------------------------ the callback handler

  private enum Mode { HEADER, SAMPLE, DATA }

  private final class Handler extends AbstractBaseCsvCallbackHandler<Object> {
    Mode mode = Mode.HEADER;
    List<String> names;
    Sample sample;
    ColumnWriter[] writers;
    int columns;
    int fields;
    int row;
    int badColumn = -1;
    String badValue;
    boolean lastQuoted;
    private final char[] nul = settings.nullString().toCharArray();

    long line() {
      return getStartingLineNumber();
    }

    @Override
    protected void handleBegin(long startingLineNumber) {
      fields = 0;
    }

    @Override
    protected void handleField(int index, char[] buf, int off, int len, boolean quoted) {
      fields = index + 1;
      lastQuoted = quoted;
      if (index >= columns) {
        return;
      }
      switch (mode) {
        case HEADER -> names.add(new String(buf, off, len));
        case SAMPLE -> {
          if (!(isNull(buf, off, len) && !quoted)) {
            sample.add(index, buf, off, len);
          }
        }
        case DATA -> {
          ColumnWriter w = writers[index];
          if (badColumn >= 0) {
            return;
          }
          if (isNull(buf, off, len) && (!quoted || w.quotedNullIsNull())) {
            w.nul(row);
            return;
          }
          try {
            w.text(buf, off, len, row);
          } catch (ColumnWriter.BadCell e) {
            badColumn = index;
            badValue = e.value;
          }
        }
      }
    }

    private boolean isNull(char[] buf, int off, int len) {
      if (len != nul.length) {
        return false;
      }
      for (int i = 0; i < len; i++) {
        if (buf[off + i] != nul[i]) {
          return false;
        }
      }
      return true;
    }

    @Override
    protected Object buildRecord() {
      return RECORD;
    }
  }
}
