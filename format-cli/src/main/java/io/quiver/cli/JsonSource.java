package io.quiver.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A JSON lines file (one object per line; any whitespace between objects is accepted) read straight into
 * Arrow vectors. Types come from the first {@code sampleRows} objects: booleans, int64, float64 (ints and
 * floats mixed), strings (dates and timestamps when every sampled string of the field is one), objects as
 * structs and arrays as lists of the merged element type.
 *
 * <p>Lines are read by {@link JsonLines} from their bytes; a line it leaves (see there) is read by Jackson's
 * token parser, alone when it is one object, else the file from that line on: values and errors are always
 * what Jackson's reading gives.
 */
final class JsonSource implements ImportSource {
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
      .build();
  /** The line reader's buffer size; tests make it small to cross its boundary everywhere. */
  static int bufferSize = 1 << 20;
  /** Whether lines are read by {@link JsonLines} (tests compare it with Jackson alone). */
  static boolean fastPath = true;

  private final Path file;
  private final Schema schema;
  private final Origins origins;
  private final Counting in;
  private final JsonLines lines;
  /** Jackson reading the rest of the file, from line {@link #lineBase} + 1 on, once the fast path left it. */
  private JsonParser parser;
  private long lineBase;
  /** Lines Jackson read alone, after the fast path left them (for tests). */
  long linesLeft;
  private final boolean tableSchema;
  private ColumnWriter.Fields fields;
  private VectorSchemaRoot root;

  JsonSource(Path file, Settings settings, Schema existing) {
    this.file = file;
    this.tableSchema = existing != null;
    if (existing != null) {
      schema = existing;
      origins = Origins.table();
    } else {
      schema = infer(file, settings);
      origins = Origins.of(settings.types().keySet(), settings.sampleRows());
    }
    try {
      in = new Counting(Files.newInputStream(file));
      lines = new JsonLines(in, bufferSize);
      if (!fastPath) {
        parser = FACTORY.createParser(in);
      }
    } catch (IOException e) {
      throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The writers of each root bound so far (the import alternates between two). */
  private final Map<VectorSchemaRoot, ColumnWriter.Fields> bound = new IdentityHashMap<>();

  @Override
  public void bind(VectorSchemaRoot root) {
    this.root = root;
    this.fields = bound.computeIfAbsent(root, r -> new ColumnWriter.Fields(r.getFieldVectors(), ""));
  }

  @Override
  public int fill(int maxRows) {
    for (FieldVector v : root.getFieldVectors()) {
      v.reset();
    }
    fields.reserve(maxRows);
    int n = 0;
    try {
      while (parser == null && n < maxRows) {
        if (!lines.nextLine()) {
          if (!lines.atEnd()) {
            toJackson(lines.lineStart(), lines.line()); // a line too long to buffer
          }
          break;
        }
        int r = lines.row(fields, n);
        if (r == JsonLines.FALLBACK) {
          linesLeft++;
        }
        if (r == JsonLines.ROW || r == JsonLines.FALLBACK && jacksonLine(n)) {
          n++;
        } else if (r == JsonLines.FALLBACK) {
          toJackson(lines.start(), lines.line() - 1);
        }
      }
      if (parser != null) {
        n = jacksonFill(n, maxRows);
      }
    } catch (JsonProcessingException e) {
      throw invalid(e);
    } catch (CharConversionException e) {
      throw ImportSource.notUtf8(file);
    } catch (IOException e) {
      throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
    }
    root.setRowCount(n);
    return n;
  }

  /**
   * Jackson's reading of the current line into row {@code row}, when the line is exactly one object that
   * reads without error; false otherwise (the row may be partly written), and the caller reads the file from
   * this line on with Jackson, which then gives the outcome (an error, or an object across lines).
   */
  private boolean jacksonLine(int row) {
    try (JsonParser p = FACTORY.createParser(lines.buffer(), lines.start(), lines.end() - lines.start())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      fields.object(p, row);
      return p.nextToken() == null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Reads the rest of the file with Jackson from {@code offset} in the line buffer, after line {@code base}. */
  private void toJackson(int offset, long base) throws IOException {
    parser = FACTORY.createParser(lines.rest(offset));
    lineBase = base;
  }

  /** Jackson's reading of objects into rows {@code n} on, up to {@code maxRows}; returns the row count. */
  private int jacksonFill(int n, int maxRows) throws IOException {
    while (n < maxRows) {
      JsonToken t = parser.nextToken();
      if (t == null) {
        break;
      }
      long line = lineBase + parser.currentTokenLocation().getLineNr();
      if (t != JsonToken.START_OBJECT) {
        throw new UserException(file + " line " + line + ": expected a JSON object, found " + describe(t));
      }
      try {
        fields.object(parser, n);
      } catch (ColumnWriter.CellError e) {
        throw origins.badValue(file, line, e.writer, e.value);
      } catch (ColumnWriter.UnknownField e) {
        throw unknown(line, e.path);
      }
      n++;
    }
    return n;
  }

  private UserException unknown(long line, String path) {
    String top = Origins.top(path);
    if (tableSchema) {
      return new UserException(file + " line " + line + ": field '" + path + "' is not a column of the table;"
          + " table columns are " + schema.getFields().stream().map(Field::getName).toList());
    }
    return new UserException(file + " line " + line + ": field '" + path + "' is not in the schema inferred from"
        + " the first rows; pass --type " + top + "=<type>" + (top.equals(path) ? "" : " (string keeps the JSON)")
        + " or a larger --sample-rows");
  }

  private UserException invalid(JsonProcessingException e) {
    long line = e.getLocation() == null ? -1 : lineBase + e.getLocation().getLineNr();
    String msg = e.getOriginalMessage().replace('\n', ' ');
    if (msg.contains("Invalid UTF-8")) {
      return ImportSource.notUtf8(file);
    }
    return new UserException(file + " line " + line + ": not valid JSON: " + msg);
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> t.toString();
    };
  }

  /** Whether Jackson reads the rest of the file (the fast path left it; for tests). */
  boolean streaming() {
    return parser != null;
  }

  @Override
  public long bytesRead() {
    return in.count();
  }

  @Override
  public void close() {
    try {
      if (parser != null) {
        parser.close();
      }
      lines.close();
    } catch (IOException e) {
      // read-only
    }
  }

  // ------------------------------------------------------------------ inference

  /** What the sampled values of one field were. */
  static final class JType {
    enum Kind { NULL, BOOL, INT, FLOAT, STRING, STRUCT, LIST }

    Kind kind = Kind.NULL;
    boolean allDates = true;
    boolean allTimestamps = true;
    final Map<String, JType> fields = new LinkedHashMap<>();
    JType item;

    String describe() {
      return switch (kind) {
        case NULL -> "null";
        case BOOL -> "bool";
        case INT -> "int64";
        case FLOAT -> "float64";
        case STRING -> "string";
        case STRUCT -> "object";
        case LIST -> "array";
      };
    }

    ArrowType arrow() {
      return switch (kind) {
        case NULL -> ArrowType.Utf8.INSTANCE;
        case BOOL -> ArrowType.Bool.INSTANCE;
        case INT -> Types.parse("int64");
        case FLOAT -> Types.parse("float64");
        case STRING -> allDates ? Types.parse("date") : allTimestamps ? Types.parse("timestamp")
            : ArrowType.Utf8.INSTANCE;
        case STRUCT -> fields.isEmpty() ? ArrowType.Utf8.INSTANCE : ArrowType.Struct.INSTANCE;
        case LIST -> ArrowType.List.INSTANCE;
      };
    }

    Field field(String name) {
      ArrowType t = arrow();
      List<Field> children = new ArrayList<>();
      if (t instanceof ArrowType.Struct) {
        fields.forEach((n, c) -> children.add(c.field(n)));
      } else if (t instanceof ArrowType.List) {
        children.add((item == null ? new JType() : item).field("item"));
      }
      return new Field(name, FieldType.nullable(t), children);
    }
  }

  private static Schema infer(Path file, Settings settings) {
    Map<String, JType> columns = new LinkedHashMap<>();
    try (JsonParser p = FACTORY.createParser(Files.newInputStream(file))) {
      for (int n = 0; n < settings.sampleRows(); n++) {
        JsonToken t = p.nextToken();
        if (t == null) {
          break;
        }
        long line = p.currentTokenLocation().getLineNr();
        if (t != JsonToken.START_OBJECT) {
          throw new UserException(file + " line " + line + ": expected a JSON object, found " + describe(t));
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          if (settings.types().containsKey(name)) {
            p.skipChildren();
            columns.putIfAbsent(name, null);
            continue;
          }
          merge(columns.computeIfAbsent(name, k -> new JType()), p, file, line, name);
        }
      }
    } catch (JsonProcessingException e) {
      long line = e.getLocation() == null ? -1 : e.getLocation().getLineNr();
      String msg = e.getOriginalMessage().replace('\n', ' ');
      if (msg.contains("Invalid UTF-8")) {
        throw ImportSource.notUtf8(file);
      }
      throw new UserException(file + " line " + line + ": not valid JSON: " + msg);
    } catch (CharConversionException e) {
      throw ImportSource.notUtf8(file);
    } catch (IOException e) {
      throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
    }
    for (String given : settings.types().keySet()) {
      columns.putIfAbsent(given, null);
    }
    List<Field> out = new ArrayList<>();
    columns.forEach((name, t) -> out.add(t == null
        ? new Field(name, FieldType.nullable(Types.parse(settings.types().get(name))), null) : t.field(name)));
    return new Schema(out);
  }

  private static void merge(JType into, JsonParser p, Path file, long line, String path) throws IOException {
    JsonToken t = p.currentToken();
    JType.Kind kind = switch (t) {
      case VALUE_NULL -> JType.Kind.NULL;
      case VALUE_TRUE, VALUE_FALSE -> JType.Kind.BOOL;
      case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? JType.Kind.FLOAT
          : JType.Kind.INT;
      case VALUE_NUMBER_FLOAT -> JType.Kind.FLOAT;
      case VALUE_STRING -> JType.Kind.STRING;
      case START_OBJECT -> JType.Kind.STRUCT;
      case START_ARRAY -> JType.Kind.LIST;
      default -> throw new IllegalStateException("unexpected " + t);
    };
    if (kind == JType.Kind.NULL) {
      return;
    }
    if (into.kind == JType.Kind.NULL) {
      into.kind = kind;
    } else if (into.kind != kind) {
      boolean numbers = (into.kind == JType.Kind.INT || into.kind == JType.Kind.FLOAT)
          && (kind == JType.Kind.INT || kind == JType.Kind.FLOAT);
      if (!numbers) {
        JType seen = new JType();
        seen.kind = kind;
        String top = Origins.top(path);
        throw new UserException(file + " line " + line + " field '" + path + "': " + seen.describe()
            + " value where earlier lines had " + into.describe() + "; use --type " + top + "=<type>"
            + " (string keeps any JSON value as its text)");
      }
      into.kind = JType.Kind.FLOAT;
    }
    switch (kind) {
      case STRING -> {
        char[] b = p.getTextCharacters();
        int off = p.getTextOffset();
        int end = off + p.getTextLength();
        if (into.allDates) {
          try {
            ColumnWriter.parseDate(b, off, end);
          } catch (DateTimeException e) {
            into.allDates = false;
          }
        }
        if (into.allTimestamps) {
          try {
            ColumnWriter.parseTimestampMicros(b, off, end);
          } catch (DateTimeException | ArithmeticException e) {
            into.allTimestamps = false;
          }
        }
      }
      case STRUCT -> {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          merge(into.fields.computeIfAbsent(name, k -> new JType()), p, file, line, path + "." + name);
        }
      }
      case LIST -> {
        if (into.item == null) {
          into.item = new JType();
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
          merge(into.item, p, file, line, path + "[]");
        }
      }
      default -> {
        // scalars: the kind is all
      }
    }
  }
}
