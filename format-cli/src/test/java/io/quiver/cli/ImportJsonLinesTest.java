package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JSON lines import reads lines from their bytes ({@link JsonLines}) and leaves every line it is not sure of
 * to Jackson. Each case reads the same file twice, with the byte path (a read buffer of a few bytes, so that
 * lines cross its boundary everywhere and make it grow) and with Jackson alone, and asserts the same cells,
 * value for value, or the same one-line error: escapes, non-ASCII text, numbers of every JSON shape into
 * int, float, decimal and text columns, nulls, missing, repeated and reordered fields, nested structs and
 * lists, whitespace, blank lines and CRLF, objects across lines, several objects on a line, objects kept as
 * text, and invalid JSON, values and UTF-8.
 */
class ImportJsonLinesTest {
  @TempDir
  Path dir;

  private int files;
  /** Of the last fast read: lines Jackson read alone, and whether it read the end of the file. */
  private static long linesLeft;
  private static boolean streamed;

  @AfterEach
  void defaults() {
    JsonSource.bufferSize = 1 << 20;
    JsonSource.fastPath = true;
    JsonLines.maxLine = 16 << 20;
  }

  private static final Schema SCHEMA = new Schema(List.of(
      field("i", Types.parse("int64")),
      field("i32", Types.parse("int32")),
      field("f", Types.parse("float64")),
      field("dec", Types.parse("decimal(12,3)")),
      field("s", ArrowType.Utf8.INSTANCE),
      field("b", ArrowType.Bool.INSTANCE),
      field("d", Types.parse("date")),
      field("ts", Types.parse("timestamp")),
      new Field("geo", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          field("lat", Types.parse("float64")), field("name", ArrowType.Utf8.INSTANCE))),
      new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE), List.of(field("item", ArrowType.Utf8.INSTANCE))),
      new Field("pts", FieldType.nullable(ArrowType.List.INSTANCE), List.of(
          new Field("item", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(field("x", Types.parse("int64"))))))));

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private Path write(byte[] bytes) throws IOException {
    Path p = dir.resolve("in" + files++ + ".jsonl");
    Files.write(p, bytes);
    return p;
  }

  private Path write(String text) throws IOException {
    return write(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Every row of the file as read into SCHEMA (batches of {@code batch} rows), one TSV line each. */
  private static String read(Path file, boolean fast, int buffer, int batch) {
    JsonSource.fastPath = fast;
    JsonSource.bufferSize = buffer;
    ImportSource.Settings settings = new ImportSource.Settings(',', '"', "", true, 10, Map.of());
    StringBuilder out = new StringBuilder();
    try (BufferAllocator allocator = new RootAllocator();
        JsonSource source = new JsonSource(file, settings, SCHEMA);
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      source.bind(root);
      try {
        while (source.fill(batch) > 0) {
          String tsv = root.contentToTSVString();
          out.append(tsv, tsv.indexOf('\n') + 1, tsv.length());
        }
      } finally {
        linesLeft = source.linesLeft;
        streamed = source.streaming();
      }
    } finally {
      JsonSource.fastPath = true;
    }
    return out.toString();
  }

  /** Asserts that both paths read the file alike, whatever the buffer and batch sizes; returns the rows. */
  private static String same(Path file) {
    String jackson = read(file, false, 1 << 20, 8192);
    for (int buffer : new int[] {5, 64, 1 << 20}) {
      for (int batch : new int[] {1, 3, 8192}) {
        assertThat(read(file, true, buffer, batch)).as("buffer %d, batch %d", buffer, batch).isEqualTo(jackson);
      }
    }
    return jackson;
  }

  /** Asserts that both paths fail alike; returns the message. */
  private static String sameError(Path file) {
    UserException jackson = catchThrowableOfType(() -> read(file, false, 1 << 20, 8192), UserException.class);
    assertThat(jackson).as("Jackson alone fails").isNotNull();
    for (int buffer : new int[] {5, 1 << 20}) {
      UserException fast = catchThrowableOfType(() -> read(file, true, buffer, 2), UserException.class);
      assertThat(fast).as("buffer %d", buffer).isNotNull();
      assertThat(fast.getMessage()).isEqualTo(jackson.getMessage());
    }
    return jackson.getMessage();
  }

  @Test
  void valuesOfEveryShapeReadAsJacksonReadsThem() throws IOException {
    String rows = same(write(String.join("\n",
        "{\"i\":1,\"i32\":-2,\"f\":1.5,\"dec\":2.25,\"s\":\"plain\",\"b\":true,\"d\":\"2024-02-29\","
            + "\"ts\":\"2024-02-29T10:11:12.123456Z\",\"geo\":{\"lat\":-0.5,\"name\":\"Zürich\"},"
            + "\"tags\":[\"a\",\"b\"],\"pts\":[{\"x\":1},{\"x\":2}]}",
        "{\"s\":\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20AC \\ud83d\\ude00 \\u0000 end\"}",
        "{\"s\":\"naïve ☃ 😀\",\"tags\":[\"ü\",null,\"\"],\"pts\":[null,{}]}",
        "{\"f\":-0,\"i\":-0,\"dec\":-0}",
        "{\"f\":0,\"s\":-0}",
        "{\"f\":2.4099999999999966,\"s\":2.4099999999999966}",
        "{\"f\":1e5,\"s\":1e5}",
        "{\"f\":-1.5E-3,\"s\":-1.5E-3,\"dec\":1.5E+2}",
        "{\"f\":12345678901234567890123,\"s\":12345678901234567890123}",
        "{\"f\":9007199254740993}",
        "{\"f\":123456789.123456789,\"i\":9223372036854775807,\"i32\":2147483647}",
        "{\"i\":-9223372036854775808,\"f\":1E400,\"s\":1E-400}",
        "{\"s\":true,\"b\":false}",
        "{\"s\":false,\"i\":\"42\",\"f\":\"3.25\",\"b\":\"TRUE\",\"dec\":\"1.5\"}",
        "{\"s\":null,\"i\":null,\"geo\":null,\"tags\":null,\"pts\":null}",
        "{}",
        "{\"geo\":{},\"tags\":[],\"pts\":[]}",
        "{\"ts\":\"2024-01-01 00:00\",\"d\":\"1970-01-01\"}",
        "{\"ts\":\"2024-01-01T00:00:00+05:30\"}",
        "{\"ts\":\"2024-01-01T00:00:00.123456789\"}",
        "{\"ts\":\"2024-01-01T00:00:00+05:30:15\"}",
        "{\"ts\":\"2020-06-01T12:00:00Z\",\"b\":true,\"i\":7,\"s\":\"reordered\",\"geo\":{\"name\":\"n\",\"lat\":1}}",
        "  \t{ \"i\" : 1 , \"s\" : \"spaced\" , \"tags\" : [ \"a\" , \"b\" ] , \"geo\" : { \"lat\" : 2 } }  \r",
        "",
        "   ",
        "{\"s\":\"last line without a newline\"}")));
    assertThat(linesLeft).as("lines left to Jackson").isZero();
    assertThat(streamed).isFalse();
    assertThat(rows).contains("esc \" \\ / \b \f \n \r \t é € 😀 \u0000 end");
  }

  @Test
  void linesTheBytePathLeavesReadAsJacksonReadsThem() throws IOException {
    same(write(String.join("\n",
        "{\"i\":1,\"s\":\"fast\"}",
        "{\"s\":{\"kept\": [1, 2.50, \"x\", {\"y\": null}]}}",
        "{\"s\":[true, false]}",
        "{\"tags\":[1, {}, [true], \"t\"]}",
        "{\"tags\":[\"x\"],\"tags\":[\"y\",\"z\"],\"i\":1,\"i\":2}",
        "{\"i\":2}{\"i\":3} {\"i\":4}",
        "{\"i\":5,",
        " \"s\":\"an object across lines\",",
        " \"geo\":{\"lat\":1.25}",
        "}",
        "{\"i\":6,\"s\":\"read by Jackson too: it reads on from the line of three objects\"}",
        "{\"i\":7}")));
    // the object and the array kept as text, the mixed tags, the repeated fields, the line of three objects
    assertThat(linesLeft).isEqualTo(5);
    assertThat(streamed).as("Jackson reads on from the line of three objects").isTrue();
    same(write("\uFEFF{\"i\":1}\n{\"i\":2}\n"));
    same(write("{\"\\u0069\":1}\n{\"s\":\"a name with an escape\"}\n"));
  }

  @Test
  void aLineLongerThanTheLongestTheBytePathBuffersIsStreamedByJackson() throws IOException {
    JsonLines.maxLine = 100;
    StringBuilder b = new StringBuilder();
    b.append("{\"i\":1}\n{\"s\":\"").append("x".repeat(500)).append("\"}\n{\"i\":3}\n{\"i\":\"bad\"}\n");
    Path f = write(b.toString());
    assertThat(sameError(f)).contains("line 4 column 'i': 'bad' is not a int64 value");
  }

  @Test
  void randomLinesReadAsJacksonReadsThem() throws IOException {
    Random r = new Random(20);
    StringBuilder b = new StringBuilder();
    String[] words = {"a", "Zürich", "na\\u00efve", "q\\\"uote", "tab\\t", "😀", "\\ud83d\\ude00", "", "x y"};
    for (int line = 0; line < 2000; line++) {
      List<String> members = new ArrayList<>();
      if (r.nextInt(4) > 0) {
        members.add("\"i\":" + (r.nextInt(10) == 0 ? "null" : Long.toString(r.nextLong() >> r.nextInt(64))));
      }
      if (r.nextInt(4) > 0) {
        members.add("\"f\":" + switch (r.nextInt(5)) {
          case 0 -> Double.toString(r.nextDouble() * 1000 - 500);
          case 1 -> Integer.toString(r.nextInt());
          case 2 -> (r.nextInt(2) == 0 ? "-" : "") + r.nextInt(1000) + "e" + (r.nextInt(40) - 20);
          case 3 -> Long.toString(r.nextLong()) + r.nextInt(1000);
          default -> "null";
        });
      }
      if (r.nextInt(4) > 0) {
        members.add("\"dec\":" + (r.nextInt(1_000_000) - 500_000) / 1000.0);
      }
      if (r.nextInt(4) > 0) {
        members.add("\"s\":\"" + words[r.nextInt(words.length)] + words[r.nextInt(words.length)] + "\"");
      }
      if (r.nextInt(3) > 0) {
        members.add("\"b\":" + (r.nextBoolean() ? "true" : "false"));
      }
      if (r.nextInt(3) > 0) {
        members.add("\"ts\":\"20" + (10 + r.nextInt(20)) + "-0" + (1 + r.nextInt(9)) + "-1" + r.nextInt(10) + "T0"
            + r.nextInt(10) + ":1" + r.nextInt(10) + ":2" + r.nextInt(10) + (r.nextBoolean() ? "Z" : ".5-01:00")
            + "\"");
      }
      if (r.nextInt(3) > 0) {
        members.add("\"geo\":" + (r.nextInt(5) == 0 ? "null" : "{\"lat\":" + r.nextGaussian() + ",\"name\":\""
            + words[r.nextInt(words.length)] + "\"}"));
      }
      if (r.nextInt(3) > 0) {
        List<String> tags = new ArrayList<>();
        for (int t = r.nextInt(4); t > 0; t--) {
          tags.add(r.nextInt(6) == 0 ? "null" : "\"" + words[r.nextInt(words.length)] + "\"");
        }
        members.add("\"tags\":[" + String.join(",", tags) + "]");
      }
      if (r.nextInt(5) == 0) {
        members.add("\"pts\":[{\"x\":" + r.nextInt() + "},null,{}]");
      }
      java.util.Collections.shuffle(members, r);
      String sep = r.nextInt(5) == 0 ? " , " : ",";
      b.append(r.nextInt(10) == 0 ? " " : "").append('{').append(String.join(sep, members)).append('}')
          .append(r.nextInt(10) == 0 ? "\r\n" : "\n");
    }
    String rows = same(write(b.toString()));
    assertThat(rows.lines()).hasSize(2000);
    assertThat(linesLeft).as("lines left to Jackson").isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"i\":\"x\"}", "{\"i\":1.5}", "{\"i\":1e2}", "{\"i\":99999999999999999999}", "{\"i32\":2147483648}",
      "{\"i\":true}", "{\"b\":1}", "{\"d\":\"2024-02-30\"}", "{\"ts\":\"noon\"}", "{\"dec\":1.2345}",
      "{\"geo\":1}", "{\"geo\":[1]}", "{\"tags\":\"x\"}", "{\"pts\":[{\"x\":\"y\"}]}",
      "{\"nick\":\"x\"}", "{\"geo\":{\"alt\":1}}", "{\"s\":\"\\ud800\"}", "{\"s\":\"\\udc00x\"}",
      "{\"i\":01}", "{\"i\":-}", "{\"i\":1.}", "{\"i\":.5}", "{\"f\":NaN}", "{\"i\":1,}", "{'i':1}",
      "{\"s\":\"unterminated}", "{\"s\":\"tab\tinside\"}", "{\"s\":\"\\x\"}", "{\"s\":\"\\u12\"}", "[1]", "1",
      "{\"i\":tru}", "{\"i\":nul}", "{\"i\" 1}", "{i:1}", "{\"i\":1}x", "{\"i\":1} 2"})
  void errorsAreJacksonsWithTheirLine(String bad) throws IOException {
    Path f = write("{\"i\":1,\"s\":\"ok\"}\n{\"i\":2}\n" + bad + "\n{\"i\":4}\n");
    String message = sameError(f);
    assertThat(message).contains(f + " line 3");
  }

  @Test
  void invalidUtf8IsReportedAsBefore() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes("{\"i\":1}\n{\"s\":\"caf".getBytes(StandardCharsets.UTF_8));
    b.write(0xE9);
    b.writeBytes("\"}\n".getBytes(StandardCharsets.UTF_8));
    assertThat(sameError(write(b.toByteArray()))).contains("line 2: invalid UTF-8 (byte 0xE9");
    b.reset();
    b.writeBytes("{\"i\":1}\n{\"s\":\"".getBytes(StandardCharsets.UTF_8));
    b.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}); // an encoded surrogate
    b.writeBytes("\"}\n".getBytes(StandardCharsets.UTF_8));
    assertThat(sameError(write(b.toByteArray()))).contains("line 2: invalid UTF-8");
  }

  @Test
  void anErrorAfterAnObjectAcrossLinesNamesItsLineInTheFile() throws IOException {
    Path f = write("{\"i\":1}\n{\"i\":2,\n \"s\":\"two lines\"}\n{\"i\":3}\n{\"i\":\"four\"}\n");
    assertThat(sameError(f)).contains(f + " line 5 column 'i': 'four' is not a int64 value");
  }
}
