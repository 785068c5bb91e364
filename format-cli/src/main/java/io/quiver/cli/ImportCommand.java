package io.quiver.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.TableNotFoundException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver import}: creates the table from the first file (or appends when it exists) and appends
 * every other file, one commit per file. CSV types are inferred (bool, int64, float64, date, timestamp,
 * string) unless {@code --type} says otherwise; JSON lines are typed by their values; Arrow IPC files keep
 * their schema.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = "Creates or appends to a table from CSV (.csv), JSON lines (.jsonl, .json, .ndjson) or Arrow IPC"
        + " (.arrow, .arrows, .ipc, .feather) files.",
            footer = "%nExample: quiver import /tmp/t people.csv --type zip=string")
final class ImportCommand extends TableCommand {
  private static final int BATCH_ROWS = 8192;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "<file>")
  List<Path> files;

  @Option(names = "--type", paramLabel = "col=type",
      description = "Type of a CSV/JSON column instead of the inferred one (repeatable). Types: " + Types.NAMES)
  Map<String, String> typeOverrides = new LinkedHashMap<>();

  @Override
  void run() throws IOException {
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        throw new UserException("file " + f + " does not exist (or is not a regular file)");
      }
    }
    Dataset ds = null;
    try {
      try {
        ds = open();
      } catch (TableNotFoundException e) {
        ds = null;
      }
      long total = 0;
      try (Progress progress = new Progress(err(), "import", files.size())) {
        for (Path f : files) {
          long rows;
          String name = f.getFileName().toString().toLowerCase(Locale.ROOT);
          if (name.endsWith(".arrow") || name.endsWith(".arrows") || name.endsWith(".ipc")
              || name.endsWith(".feather")) {
            long[] out = new long[1];
            ds = importArrow(ds, f, out);
            rows = out[0];
          } else {
            List<Map<String, Object>> parsed;
            Schema schema;
            if (name.endsWith(".csv") || name.endsWith(".tsv")) {
              CsvData csv = readCsv(f, ds == null ? null : ds.schema().toArrow());
              parsed = csv.rows;
              schema = csv.schema;
            } else if (name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".ndjson")) {
              CsvData json = readJsonLines(f, ds == null ? null : ds.schema().toArrow());
              parsed = json.rows;
              schema = json.schema;
            } else {
              throw new UserException("cannot tell the format of " + f + " from its name; use .csv, .tsv, .jsonl,"
                  + " .json, .ndjson, .arrow, .arrows, .ipc or .feather");
            }
            List<VectorSchemaRoot> batches = toBatches(schema, parsed, f);
            try {
              if (ds == null) {
                ds = Dataset.create(uri, schema, batches, options());
              } else {
                ds.append(batches);
              }
            } finally {
              batches.forEach(VectorSchemaRoot::close);
            }
            rows = parsed.size();
          }
          total += rows;
          progress.advance(1);
          err().println("imported " + rows + " rows from " + f + " -> version " + ds.version());
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

  // ------------------------------------------------------------------ Arrow IPC

  private Dataset importArrow(Dataset ds, Path f, long[] rows) throws IOException {
    byte[] magic = new byte[6];
    try (InputStream in = Files.newInputStream(f)) {
      int n = in.readNBytes(magic, 0, 6);
      boolean fileFormat = n == 6 && new String(magic, StandardCharsets.US_ASCII).equals("ARROW1");
      try (var channel = Files.newByteChannel(f);
          ArrowReader reader = fileFormat ? new ArrowFileReader(channel, allocator)
              : new ArrowStreamReader(Files.newInputStream(f), allocator)) {
        if (ds == null) {
          Dataset created = Dataset.create(uri, reader.getVectorSchemaRoot().getSchema(), batches(reader), options());
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
        throw new UserException("cannot read Arrow IPC file " + f + ": " + e.getMessage(), e);
      }
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
          throw new java.util.NoSuchElementException();
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

  // ------------------------------------------------------------------ CSV

  record CsvData(Schema schema, List<Map<String, Object>> rows) {}

  private CsvData readCsv(Path f, Schema existing) throws IOException {
    CSVFormat format = (f.toString().toLowerCase(Locale.ROOT).endsWith(".tsv") ? CSVFormat.TDF : CSVFormat.DEFAULT)
        .builder().setHeader().setSkipHeaderRecord(true).setIgnoreEmptyLines(true).setTrim(false).get();
    List<String> header;
    List<CSVRecord> records = new ArrayList<>();
    try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8); CSVParser parser = CSVParser.parse(r, format)) {
      header = parser.getHeaderNames();
      Iterator<CSVRecord> it = parser.iterator();
      while (true) {
        CSVRecord rec;
        try {
          if (!it.hasNext()) {
            break;
          }
          rec = it.next();
        } catch (UncheckedIOException | IllegalStateException e) {
          throw new UserException(f + ": malformed CSV after line " + parser.getCurrentLineNumber() + ": "
              + rootMessage(e));
        }
        if (rec.size() != header.size()) {
          throw new UserException(f + " line " + lineOf(rec) + ": expected " + header.size() + " values (" + header
              + "), found " + rec.size());
        }
        records.add(rec);
      }
    } catch (IllegalArgumentException | UncheckedIOException e) {
      throw new UserException(f + ": cannot read the CSV header: " + rootMessage(e));
    }
    if (header.isEmpty()) {
      throw new UserException(f + " has no header line; the first line must name the columns");
    }
    checkOverrides(header, f);
    Schema schema;
    if (existing != null) {
      schema = existing;
      checkColumns(header, existing, f);
    } else {
      List<Field> fields = new ArrayList<>();
      for (int c = 0; c < header.size(); c++) {
        String name = header.get(c);
        ArrowType type = typeOverrides.containsKey(name) ? Types.parse(typeOverrides.get(name)) : infer(records, c);
        fields.add(new Field(name, FieldType.nullable(type), null));
      }
      schema = new Schema(fields);
    }
    List<Map<String, Object>> rows = new ArrayList<>(records.size());
    for (CSVRecord rec : records) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (int c = 0; c < header.size(); c++) {
        String cell = rec.get(c);
        String name = header.get(c);
        Field field = schema.findField(name);
        row.put(name, cell.isEmpty() ? null : parseCell(cell, field.getType(), f, lineOf(rec), name));
      }
      rows.add(row);
    }
    return new CsvData(schema, rows);
  }

  private static long lineOf(CSVRecord rec) {
    return rec.getRecordNumber() + 1;
  }

  private void checkOverrides(List<String> header, Path f) {
    for (String col : typeOverrides.keySet()) {
      if (!header.contains(col)) {
        throw new UserException("--type names unknown column '" + col + "'; " + f + " has columns " + header);
      }
    }
  }

  private static void checkColumns(List<String> names, Schema existing, Path f) {
    for (String name : names) {
      if (existing.getFields().stream().noneMatch(x -> x.getName().equals(name))) {
        throw new UserException(f + " has column '" + name + "' that the table does not have; table columns are "
            + existing.getFields().stream().map(Field::getName).toList());
      }
    }
  }

  private static ArrowType infer(List<CSVRecord> records, int column) {
    boolean bool = true;
    boolean integer = true;
    boolean decimal = true;
    boolean date = true;
    boolean timestamp = true;
    boolean any = false;
    for (CSVRecord r : records) {
      String s = r.get(column).trim();
      if (s.isEmpty()) {
        continue;
      }
      any = true;
      bool &= s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false");
      integer &= s.matches("[-+]?\\d{1,18}");
      decimal &= s.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?");
      date &= s.matches("\\d{4}-\\d{2}-\\d{2}");
      timestamp &= s.matches("\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})?");
    }
    if (!any) {
      return ArrowType.Utf8.INSTANCE;
    }
    if (bool) {
      return ArrowType.Bool.INSTANCE;
    }
    if (integer) {
      return Types.parse("int64");
    }
    if (decimal) {
      return Types.parse("float64");
    }
    if (date) {
      return Types.parse("date");
    }
    if (timestamp) {
      return Types.parse("timestamp");
    }
    return ArrowType.Utf8.INSTANCE;
  }

  private static Object parseCell(String cell, ArrowType type, Path f, long line, String column) {
    String s = cell.trim();
    try {
      if (type instanceof ArrowType.Bool) {
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
          return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException();
      }
      if (type instanceof ArrowType.Int) {
        return Long.parseLong(s.startsWith("+") ? s.substring(1) : s);
      }
      if (type instanceof ArrowType.FloatingPoint) {
        return Double.parseDouble(s);
      }
      if (type instanceof ArrowType.Decimal) {
        return new BigDecimal(s);
      }
      if (type instanceof ArrowType.Date) {
        return LocalDate.parse(s);
      }
      if (type instanceof ArrowType.Timestamp) {
        String t = s.replace(' ', 'T');
        if (t.endsWith("Z") || t.matches(".*[+-]\\d{2}:\\d{2}$")) {
          return java.time.OffsetDateTime.parse(t).toInstant();
        }
        return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
      }
      return cell;
    } catch (RuntimeException e) {
      throw new UserException(f + " line " + line + " column '" + column + "': '" + cell + "' is not a "
          + Types.name(type) + " value");
    }
  }

  // ------------------------------------------------------------------ JSON lines

  private CsvData readJsonLines(Path f, Schema existing) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    List<Map<String, Object>> rows = new ArrayList<>();
    Map<String, ArrowType> inferred = new LinkedHashMap<>();
    List<String> order = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
      String line;
      long lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = mapper.readTree(line);
        } catch (JsonProcessingException e) {
          throw new UserException(f + " line " + lineNo + ": not valid JSON: " + e.getOriginalMessage());
        }
        if (!node.isObject()) {
          throw new UserException(f + " line " + lineNo + ": expected a JSON object, found " + node.getNodeType());
        }
        Map<String, Object> row = new LinkedHashMap<>();
        for (var it = node.fields(); it.hasNext(); ) {
          var e = it.next();
          JsonNode v = e.getValue();
          String name = e.getKey();
          if (!order.contains(name)) {
            order.add(name);
          }
          if (v.isNull()) {
            row.put(name, null);
            continue;
          }
          ArrowType t;
          Object value;
          if (v.isBoolean()) {
            t = ArrowType.Bool.INSTANCE;
            value = v.booleanValue();
          } else if (v.isIntegralNumber() && v.canConvertToLong()) {
            t = Types.parse("int64");
            value = v.longValue();
          } else if (v.isNumber()) {
            t = Types.parse("float64");
            value = v.doubleValue();
          } else if (v.isTextual()) {
            t = ArrowType.Utf8.INSTANCE;
            value = v.textValue();
          } else {
            throw new UserException(f + " line " + lineNo + " field '" + name + "': nested " + v.getNodeType()
                + " values are not supported by import; flatten them into top-level fields");
          }
          ArrowType before = inferred.get(name);
          if (before == null) {
            inferred.put(name, t);
          } else if (!before.equals(t)) {
            if (before instanceof ArrowType.Int && t instanceof ArrowType.FloatingPoint
                || before instanceof ArrowType.FloatingPoint && t instanceof ArrowType.Int) {
              inferred.put(name, Types.parse("float64"));
            } else if (!typeOverrides.containsKey(name) && existing == null) {
              throw new UserException(f + " line " + lineNo + " field '" + name + "': " + Types.name(t)
                  + " value where earlier lines had " + Types.name(before) + "; use --type " + name + "=<type>");
            }
          }
          row.put(name, value);
        }
        rows.add(row);
      }
    }
    checkOverrides(order, f);
    Schema schema;
    if (existing != null) {
      checkColumns(order, existing, f);
      schema = existing;
    } else {
      List<Field> fields = new ArrayList<>();
      for (String name : order) {
        ArrowType t = typeOverrides.containsKey(name) ? Types.parse(typeOverrides.get(name))
            : inferred.getOrDefault(name, ArrowType.Utf8.INSTANCE);
        fields.add(new Field(name, FieldType.nullable(t), null));
      }
      schema = new Schema(fields);
    }
    // convert values to the final column types
    long n = 0;
    for (Map<String, Object> row : rows) {
      n++;
      for (Map.Entry<String, Object> e : row.entrySet()) {
        if (e.getValue() != null) {
          ArrowType t = schema.findField(e.getKey()).getType();
          e.setValue(coerce(e.getValue(), t, f, n, e.getKey()));
        }
      }
    }
    return new CsvData(schema, rows);
  }

  private static Object coerce(Object v, ArrowType t, Path f, long row, String column) {
    if (v instanceof String s) {
      return parseCell(s, t, f, row, column);
    }
    if (t instanceof ArrowType.Utf8) {
      return v.toString();
    }
    if (t instanceof ArrowType.FloatingPoint && v instanceof Number num) {
      return num.doubleValue();
    }
    if (t instanceof ArrowType.Decimal && v instanceof Number num) {
      return new BigDecimal(num.toString());
    }
    if (t instanceof ArrowType.Int && v instanceof Long) {
      return v;
    }
    if (t instanceof ArrowType.Bool && v instanceof Boolean) {
      return v;
    }
    throw new UserException(f + " record " + row + " field '" + column + "': " + v + " is not a " + Types.name(t)
        + " value");
  }

  // ------------------------------------------------------------------ batches

  private List<VectorSchemaRoot> toBatches(Schema schema, List<Map<String, Object>> rows, Path f) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int start = 0; start < rows.size() || (start == 0 && rows.isEmpty()); start += BATCH_ROWS) {
        int count = Math.min(BATCH_ROWS, rows.size() - start);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        batches.add(root);
        root.allocateNew();
        for (FieldVector v : root.getFieldVectors()) {
          String name = v.getField().getName();
          for (int i = 0; i < count; i++) {
            Object value = rows.get(start + i).get(name);
            if (value == null) {
              if (!v.getField().isNullable()) {
                throw new UserException(f + " record " + (start + i + 1) + ": column '" + name
                    + "' is not nullable in the table but has no value");
              }
              v.setNull(i);
            } else {
              set(v, i, value, f, start + i + 1);
            }
          }
          v.setValueCount(count);
        }
        root.setRowCount(count);
        if (rows.isEmpty()) {
          break;
        }
      }
    } catch (RuntimeException e) {
      batches.forEach(VectorSchemaRoot::close);
      throw e;
    }
    return batches;
  }

  private static void set(FieldVector v, int i, Object value, Path f, long record) {
    String name = v.getField().getName();
    try {
      if (v instanceof BitVector b) {
        b.setSafe(i, ((Boolean) value) ? 1 : 0);
      } else if (v instanceof BigIntVector b) {
        b.setSafe(i, (Long) value);
      } else if (v instanceof IntVector b) {
        b.setSafe(i, Math.toIntExact((Long) value));
      } else if (v instanceof SmallIntVector b) {
        long l = (Long) value;
        if (l != (short) l) {
          throw new ArithmeticException();
        }
        b.setSafe(i, (short) l);
      } else if (v instanceof TinyIntVector b) {
        long l = (Long) value;
        if (l != (byte) l) {
          throw new ArithmeticException();
        }
        b.setSafe(i, (byte) l);
      } else if (v instanceof Float8Vector b) {
        b.setSafe(i, ((Number) value).doubleValue());
      } else if (v instanceof Float4Vector b) {
        b.setSafe(i, ((Number) value).floatValue());
      } else if (v instanceof DecimalVector b) {
        int scale = ((ArrowType.Decimal) v.getField().getType()).getScale();
        b.setSafe(i, ((BigDecimal) value).setScale(scale, RoundingMode.UNNECESSARY));
      } else if (v instanceof DateDayVector b) {
        b.setSafe(i, (int) ((LocalDate) value).toEpochDay());
      } else if (v instanceof TimeStampMicroTZVector b) {
        b.setSafe(i, micros((Instant) value));
      } else if (v instanceof TimeStampMicroVector b) {
        b.setSafe(i, micros((Instant) value));
      } else if (v instanceof VarCharVector b) {
        b.setSafe(i, value.toString().getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof VarBinaryVector b) {
        b.setSafe(i, value.toString().getBytes(StandardCharsets.UTF_8));
      } else {
        throw new UserException("import cannot write column '" + name + "' of type "
            + Types.name(v.getField().getType()) + "; import Arrow IPC files for such tables");
      }
    } catch (ClassCastException | ArithmeticException e) {
      throw new UserException(f + " record " + record + " column '" + name + "': " + value + " does not fit "
          + Types.name(v.getField().getType()));
    }
  }

  private static long micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return String.valueOf(t.getMessage()).replace('\n', ' ');
  }
}
