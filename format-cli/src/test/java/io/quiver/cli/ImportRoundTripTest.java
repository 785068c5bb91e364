package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Import then export gives back the input cell for cell: for every type import infers and every type
 * {@code --type} names, through CSV, JSON lines and Arrow IPC.
 */
class ImportRoundTripTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void plainProgress() {
    Progress.forceTerminal = false;
  }

  @AfterAll
  static void resetProgress() {
    Progress.forceTerminal = null;
  }

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  static CliRunner.Result ok(String... args) {
    CliRunner.Result r = CliRunner.run(args);
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    return r;
  }

  String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  /** The column types of a table, as info prints them. */
  static String types(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return String.join(",", ds.schema().fields().stream().map(f -> Types.name(f.type())).toList());
    }
  }

  // ------------------------------------------------------------------ CSV, inferred types

  @Test
  void everyInferredCsvTypeRoundTripsCellForCell() throws IOException {
    String csv = """
        b,i,f,d,ts,s
        true,0,1.5,2024-01-31,2024-01-01T10:00:00Z,plain
        false,-9223372036854775807,-0.25,1970-01-01,1969-12-31T23:59:59.999999Z,"comma, inside"
        ,9223372036854775807,,2000-02-29,,"quote "" inside"
        TRUE,42,1.0E10,,2024-06-01T00:00:00.5Z,""
        true,,3.0,9999-12-31,2024-02-29T23:59:59Z,
        false,1,-4.0,0001-01-01,2024-01-01T00:00:00Z,"line
        break"
        """;
    // (the fourth row's s is the empty string, the fifth's null; the first column's TRUE reads as true)
    Path in = write("in.csv", csv);
    ok("import", uri("t"), in.toString(), "--sample-rows", "3");
    assertThat(types(uri("t"))).isEqualTo("bool,int64,float64,date,timestamp,string");
    Path out = dir.resolve("out.csv");
    ok("export", uri("t"), out.toString());
    assertThat(Files.readString(out)).isEqualTo(csv.replace("TRUE", "true")
        .replace("2024-06-01T00:00:00.5Z", "2024-06-01T00:00:00.500Z"));
    // and back again: the same table
    ok("import", uri("t2"), out.toString());
    assertThat(cells(uri("t2"))).isEqualTo(cells(uri("t")));
  }

  // ------------------------------------------------------------------ CSV, every --type

  @ParameterizedTest(name = "--type {0}")
  @CsvSource(delimiter = '|', value = {
      "bool|true;false;;true",
      "int8|-128;127;;0",
      "int16|-32768;32767;;7",
      "int32|-2147483648;2147483647;;-1",
      "int64|-9223372036854775808;9223372036854775807;;5",
      "float32|1.5;-3.25;;3.4028235E38",
      "float64|0.1;-1.0E-300;;1.7976931348623157E308",
      "string|é ü ß;\"\";;x",
      "binary|00ff10;;abcdef0123456789;\"\"",
      "date|2024-01-31;1900-03-01;;2400-02-29",
      "timestamp|2024-01-01T10:00:00Z;1969-07-20T20:17:40.123456Z;;2038-01-19T03:14:08Z",
      "timestamp_ntz|2024-01-01T10:00:00;1969-07-20T20:17:40.123456;;2000-01-01T00:00:00",
      "decimal(10,2)|12345678.90;-0.01;;0.00",
      "decimal(38,10)|1234567890123456789012345678.0123456789;0E-10;;-1.0000000000",
  })
  void everyTypeOptionRoundTripsCellForCell(String type, String cells) throws IOException {
    // a key column too: in a one-column CSV a null would be an empty line, which CSV readers skip
    StringBuilder b = new StringBuilder("k,v\n");
    String[] values = cells.split(";", -1);
    for (int i = 0; i < values.length; i++) {
      b.append(i).append(',').append(values[i]).append('\n');
    }
    String body = b.toString();
    Path in = write("in.csv", body);
    ok("import", uri("t"), in.toString(), "--type", "v=" + type);
    assertThat(types(uri("t"))).isEqualTo("int64," + type);
    Path out = dir.resolve("out.csv");
    ok("export", uri("t"), out.toString());
    assertThat(Files.readString(out)).isEqualTo(body);
    // through JSON lines and Arrow IPC too
    Path json = dir.resolve("out.jsonl");
    ok("export", uri("t"), json.toString());
    ok("import", uri("tj"), json.toString(), "--type", "v=" + type);
    assertThat(cells(uri("tj"))).isEqualTo(cells(uri("t")));
    Path ipc = dir.resolve("out.arrow");
    ok("export", uri("t"), ipc.toString());
    ok("import", uri("ta"), ipc.toString());
    assertThat(cells(uri("ta"))).isEqualTo(cells(uri("t")));
  }

  @Test
  void delimiterNullStringNoHeaderAndBom() throws IOException {
    Path in = dir.resolve("in.tsv");
    Files.write(in, ("\uFEFF1\tNA\tx\n2\t3.5\t\"NA\"\nNA\t4\tNA\n").getBytes(StandardCharsets.UTF_8));
    ok("import", uri("t"), in.toString(), "--no-header", "--null", "NA");
    assertThat(types(uri("t"))).isEqualTo("int64,float64,string");
    assertThat(ok("scan", uri("t"), "-f", "jsonl").out().lines().toList()).containsExactly(
        "{\"column1\":1,\"column2\":null,\"column3\":\"x\"}",
        "{\"column1\":2,\"column2\":3.5,\"column3\":\"NA\"}",
        "{\"column1\":null,\"column2\":4.0,\"column3\":null}");
    Path semi = write("semi.csv", "a;b\n'x;y';2\n");
    ok("import", uri("s"), semi.toString(), "--delimiter", ";", "--quote", "'");
    assertThat(ok("scan", uri("s"), "-f", "csv").out().lines().toList()).containsExactly("a,b", "x;y,2");
    Path out = dir.resolve("out.csv");
    ok("export", uri("t"), out.toString(), "--null", "NA", "--no-header", "--delimiter", "tab");
    assertThat(Files.readString(out)).isEqualTo("1\tNA\tx\n2\t3.5\t\"NA\"\nNA\t4.0\tNA\n");
  }

  // ------------------------------------------------------------------ JSON lines, nested

  @Test
  void jsonLinesWithStructsAndListsRoundTripCellForCell() throws IOException {
    String json = """
        {"id":1,"name":"ann","score":1.5,"ok":true,"day":"2024-01-31","at":"2024-01-01T10:00:00Z","geo":{"lat":1.5,"tags":["a","b"],"inner":{"n":1}},"xs":[1,2,3],"m":[[1],[],null]}
        {"id":2,"name":null,"score":2.0,"ok":false,"day":null,"at":null,"geo":null,"xs":[],"m":null}
        {"id":3,"name":"é \\"q\\"","score":null,"ok":null,"day":"1999-12-31","at":"1999-12-31T23:59:59.999999Z","geo":{"lat":null,"tags":null,"inner":null},"xs":null,"m":[[null,4]]}
        """;
    Path in = write("in.jsonl", json);
    ok("import", uri("t"), in.toString());
    assertThat(types(uri("t"))).isEqualTo("int64,string,float64,bool,date,timestamp,struct,list,list");
    Path out = dir.resolve("out.jsonl");
    ok("export", uri("t"), out.toString());
    assertThat(Files.readString(out)).isEqualTo(json);
  }

  @Test
  void jsonStringTypeKeepsAnyValueAsItsJsonText() throws IOException {
    Path in = write("in.jsonl", "{\"v\":{\"a\":[1,2]}}\n{\"v\":7}\n{\"v\":\"s\"}\n{\"v\":null}\n");
    ok("import", uri("t"), in.toString(), "--type", "v=string");
    assertThat(ok("scan", uri("t"), "-f", "csv").out().lines().toList())
        .containsExactly("v", "\"{\"\"a\"\":[1,2]}\"", "7", "s", "");
  }

  @Test
  void manyBatchesAndFragmentsKeepEveryRowInOrder() throws IOException {
    Random r = new Random(7);
    StringBuilder b = new StringBuilder("id,x,s\n");
    for (int i = 0; i < 50_000; i++) {
      b.append(i).append(',').append(r.nextInt(1000) / 8.0).append(',').append(r.nextBoolean() ? "" : "s" + i)
          .append('\n');
    }
    Path in = write("in.csv", b.toString());
    ok("import", uri("t"), in.toString(), "--batch-rows", "1000", "--fragment-rows", "7000");
    try (Dataset ds = Dataset.open(uri("t"))) {
      assertThat(ds.countRows()).isEqualTo(50_000);
      assertThat(ds.version()).isEqualTo(1);
    }
    assertThat(ok("info", uri("t")).out()).contains("fragments: 8");
    Path out = dir.resolve("out.csv");
    ok("export", uri("t"), out.toString());
    assertThat(Files.readString(out)).isEqualTo(b.toString());
  }

  @Test
  void commitEveryCommitsWholeFragmentsAsItGoes() throws IOException {
    StringBuilder b = new StringBuilder("id\n");
    for (int i = 0; i < 2500; i++) {
      b.append(i).append('\n');
    }
    Path in = write("in.csv", b.toString());
    ok("import", uri("t"), in.toString(), "--fragment-rows", "500", "--commit-every", "2");
    try (Dataset ds = Dataset.open(uri("t"))) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(ds.countRows()).isEqualTo(2500);
    }
    assertThat(ok("info", uri("t")).out()).contains("fragments: 5");
  }

  @Test
  void exportTakesColumnsWhereAndVersion() throws IOException {
    Path in = write("in.csv", "id,name\n1,a\n2,b\n3,c\n");
    ok("import", uri("t"), in.toString());
    ok("import", uri("t"), write("more.csv", "id,name\n4,d\n").toString());
    Path out = dir.resolve("out.csv");
    ok("export", uri("t"), out.toString(), "--columns", "name", "--where", "id >= 2", "--version", "1");
    assertThat(Files.readString(out)).isEqualTo("name\nb\nc\n");
    CliRunner.Result again = CliRunner.run("export", uri("t"), out.toString());
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err().trim()).contains("exists; pass --force");
    ok("export", uri("t"), out.toString(), "--force", "--format", "jsonl");
    assertThat(Files.readString(out).lines().toList()).hasSize(4).first()
        .isEqualTo("{\"id\":1,\"name\":\"a\"}");
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".part"))).isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  /** Every cell of every row, as display strings, in order. */
  static List<String> cells(String uri) {
    List<String> rows = new ArrayList<>();
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(uri, io.quiver.dataset.DatasetOptions.builder().allocator(allocator).build());
        ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          StringBuilder b = new StringBuilder();
          for (FieldVector v : root.getFieldVectors()) {
            Object o = Table.value(v, i);
            b.append(o instanceof BigDecimal d ? d.toPlainString() : String.valueOf(o)).append('|');
          }
          rows.add(b.toString());
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }
}
