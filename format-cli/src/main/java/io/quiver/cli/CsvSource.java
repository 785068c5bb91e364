package io.quiver.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
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
 * A CSV file read by {@link CsvParser} from its bytes: cells arrive as byte ranges of the read buffer and
 * are parsed (numbers, booleans, dates and timestamps from ASCII) or copied (text, once validated as UTF-8)
 * straight into the Arrow vectors, without a String or a char[] per cell. Types are inferred from the first
 * {@code sampleRows} rows (read in a first, short pass) unless {@code --type} or an existing table gives
 * them.
 */
final class CsvSource implements ImportSource {
  /** The parser's read buffer size; tests make it small to cross its boundary everywhere. */
  static int bufferSize = CsvParser.BUFFER;

  private final Path file;
  private final Settings settings;
  private final List<String> header;
  private final Schema schema;
  /** Per top-level column: where its type came from. */
  private final Origins origins;
  private final Handler handler;
  private final CsvParser data;
  private ColumnWriter[] byFileColumn;
  private ColumnWriter[] absent;
  private VectorSchemaRoot root;

  CsvSource(Path file, Settings settings, Schema existing) {
    this.file = file;
    this.settings = settings;
    this.handler = new Handler();
    Sample sample = null;
    try (CsvParser first = open()) {
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
              byte[] u = cell.getBytes(StandardCharsets.UTF_8);
              sample.add(c, u, 0, u.length);
            }
          }
        }
        handler.mode = Mode.SAMPLE;
        handler.sample = sample;
        for (int i = settings.header() ? 0 : 1; i < settings.sampleRows() && next(first); i++) {
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
    handler.columns = Integer.MAX_VALUE;
    this.data = open();
    if (settings.header()) {
      handler.mode = Mode.SKIP;
      try {
        next(data);
      } catch (RuntimeException e) {
        data.close();
        throw e;
      }
    }
    handler.columns = header.size();
  }

  /** The file's column names (its header, or column1… / the table's with --no-header). */
  List<String> header() {
    return header;
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
    for (ColumnWriter w : byFileColumn) {
      w.reserve(maxRows);
    }
    Handler h = handler;
    h.mode = Mode.DATA;
    h.writers = byFileColumn;
    int n = 0;
    while (n < maxRows) {
      h.row = n;
      h.badColumn = -1;
      if (!next(data)) {
        break;
      }
      if (h.badColumn >= 0) {
        if (h.notUtf8) {
          throw ImportSource.notUtf8(file);
        }
        ColumnWriter w = byFileColumn[h.badColumn];
        throw origins.badValue(file, data.line(), w, h.badValue);
      }
      for (ColumnWriter w : absent) {
        if (!w.vector.getField().isNullable()) {
          throw new UserException(file + " line " + data.line() + ": column '" + w.path
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
    return data.bytesRead();
  }

  @Override
  public void close() {
    data.close();
  }

  // ------------------------------------------------------------------ reading

  private CsvParser open() {
    try {
      return new CsvParser(Files.newInputStream(file), file, settings.delimiter(), settings.quote(), bufferSize);
    } catch (IOException e) {
      throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** The next record through the handler; false at the end of the file. A ragged row is a UserException. */
  private boolean next(CsvParser p) {
    if (!p.next(handler)) {
      return false;
    }
    if (handler.columns != Integer.MAX_VALUE && p.fields() != handler.columns) {
      throw new UserException(file + " line " + p.line() + ": expected " + handler.columns + " values ("
          + header + "), found " + p.fields());
    }
    return true;
  }

  /** The first line's cells, as read by {@link #readHeader}. */
  private List<String> firstLine;

  private List<String> readHeader(CsvParser c) {
    Handler h = handler;
    h.mode = Mode.HEADER;
    h.names = new ArrayList<>();
    if (!next(c)) {
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

    /** Classifies a non-null cell of column {@code c}: {@code len} bytes of UTF-8 from {@code off}. */
    void add(int c, byte[] buf, int off, int len) {
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

  // ------------------------------------------------------------------ the cell handler

  /** What the handler does with cells: names the columns, skips the header, classifies, writes. */
  private enum Mode { HEADER, SKIP, SAMPLE, DATA }

  private final class Handler implements CsvParser.Cells {
    Mode mode = Mode.HEADER;
    List<String> names;
    Sample sample;
    ColumnWriter[] writers;
    /** Cells past this many are not looked at (the row is ragged). */
    int columns = Integer.MAX_VALUE;
    int row;
    int badColumn = -1;
    String badValue;
    /** Whether the bad cell is not UTF-8 (rather than not of its column's type). */
    boolean notUtf8;
    private final byte[] nul = settings.nullString().getBytes(StandardCharsets.UTF_8);

    @Override
    public void cell(int index, byte[] buf, int off, int len, boolean quoted) {
      if (index >= columns) {
        return;
      }
      switch (mode) {
        case HEADER -> {
          if (!Utf8.valid(buf, off, off + len)) {
            throw ImportSource.notUtf8(file);
          }
          names.add(new String(buf, off, len, StandardCharsets.UTF_8));
        }
        case SKIP -> {
          // the header, read in the first pass
        }
        case SAMPLE -> {
          if (quoted || !isNull(buf, off, len)) {
            sample.add(index, buf, off, len);
          }
        }
        case DATA -> {
          if (badColumn >= 0) {
            return;
          }
          ColumnWriter w = writers[index];
          if (isNull(buf, off, len) && (!quoted || w.quotedNullIsNull())) {
            w.nul(row);
            return;
          }
          try {
            w.bytes(buf, off, len, row);
          } catch (ColumnWriter.BadCell e) {
            badColumn = index;
            badValue = e.value;
            notUtf8 = !Utf8.valid(buf, off, off + len);
          }
        }
      }
    }

    private boolean isNull(byte[] buf, int off, int len) {
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
  }
}
