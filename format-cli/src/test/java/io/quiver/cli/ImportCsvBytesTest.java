package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CSV import reads the file's bytes with a buffer of its own ({@link CsvParser}): quoted fields with
 * delimiters, quotes and line breaks inside, CRLF and CR line ends, line numbers after quoted line breaks,
 * UTF-8 characters of every length split across the read buffer's boundary, cells longer than the buffer,
 * invalid UTF-8, the BOM, the null string and the file's last line. The buffer is made small (a few bytes)
 * so that every boundary falls everywhere; values are read back cell for cell.
 */
class ImportCsvBytesTest {
  @TempDir
  Path dir;

  private int tables;

  @BeforeAll
  static void noProgress() {
    Progress.forceTerminal = false;
  }

  @AfterEach
  void defaultBuffer() {
    CsvSource.bufferSize = CsvParser.BUFFER;
    Progress.forceTerminal = false;
  }

  private Path write(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  private Path write(String name, String text) throws IOException {
    return write(name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Imports the file into a new table; returns its rows as {@link ImportRoundTripTest#cells} prints them. */
  private List<String> imported(Path file, String... extra) {
    String uri = dir.resolve("t" + tables++).toUri().toString();
    List<String> args = new ArrayList<>(List.of("import", uri, file.toString()));
    args.addAll(List.of(extra));
    CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    return ImportRoundTripTest.cells(uri);
  }

  /** Imports the file into a new table, which fails: returns the one error line; no table is left. */
  private String error(Path file, String... extra) {
    String uri = dir.resolve("t" + tables++).toUri().toString();
    List<String> args = new ArrayList<>(List.of("import", uri, file.toString()));
    args.addAll(List.of(extra));
    CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    List<String> errors = r.err().lines().filter(l -> !l.matches("import: \\d+% .*")).toList();
    assertThat(errors).as(r::toString).hasSize(1);
    assertThat(r.err()).doesNotContain("\tat ");
    assertThat(CliRunner.run("info", uri).code()).isEqualTo(1);
    return errors.get(0);
  }

  private static byte[] bytes(Object... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object p : parts) {
      if (p instanceof String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      } else if (p instanceof Integer b) {
        out.write(b);
      } else {
        out.writeBytes((byte[]) p);
      }
    }
    return out.toByteArray();
  }

  // ------------------------------------------------------------------ quoting and line ends

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 5, 7, 11, 1 << 20})
  void quotedFieldsHoldDelimitersQuotesAndLineBreaks(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    Path in = write("q.csv", "id,s,n\n"
        + "1,\"a,b\",10\n"
        + "2,\"say \"\"hi\"\"\",20\n"
        + "3,\"two\nlines\",30\n"
        + "4,\"cr\rinside\",40\n"
        + "5,\"crlf\r\ninside\",50\n"
        + "6,\"\",60\n"
        + "7,,70\n"
        + "8,\"\"\"\",\"80\"\n"
        + "9,a\"b,90\n");
    assertThat(imported(in)).containsExactly(
        "1|a,b|10|",
        "2|say \"hi\"|20|",
        "3|two\nlines|30|",
        "4|cr\rinside|40|",
        "5|crlf\r\ninside|50|",
        "6||60|",
        "7|null|70|",
        "8|\"|80|",
        "9|a\"b|90|");
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 6, 9, 1 << 20})
  void crlfAndCrLineEndsCountLinesAsAnEditorDoes(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    String body = "id,s\r\n1,\"a\r\nb\"\r\n2,\"c\nd\re\"\r\n\r\n";
    assertThat(imported(write("crlf.csv", body))).containsExactly("1|a\r\nb|", "2|c\nd\re|");
    // lines 2-3 hold record 1, lines 4-6 record 2, line 7 is empty: x is on line 8
    Path bad = write("bad.csv", body + "x,z\r\n");
    assertThat(error(bad, "--type", "id=int64")).isEqualTo("error: " + bad + " line 8 column 'id': 'x' is not a"
        + " int64 value (as --type id=int64 says)");
    Path ragged = write("ragged.csv", "a,b\n1,\"x\ny\"\n2\n");
    assertThat(error(ragged)).isEqualTo("error: " + ragged + " line 4: expected 2 values ([a, b]), found 1");
    assertThat(imported(write("cr.csv", "id,s\r1,a\r2,\"b\rc\"\r"))).containsExactly("1|a|", "2|b\rc|");
    Path crBad = write("crbad.csv", "id,s\r1,a\r2,\"b\rc\"\rx,d\r");
    assertThat(error(crBad, "--type", "id=int64")).contains(crBad + " line 5 column 'id': 'x'");
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 5, 8, 1 << 20})
  void malformedQuotingNamesTheRecordsFirstLine(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    Path open = write("open.csv", "id,s\r\n1,\"ab\"\r\n2,\"x\r\ny,z\r\n");
    assertThat(error(open)).isEqualTo("error: " + open + " line 3: malformed CSV: a quoted field is not closed"
        + " before the end of the file");
    Path after = write("after.csv", "id,s\n1,\"a\nb\"c\n");
    assertThat(error(after)).isEqualTo("error: " + after + " line 2: malformed CSV: unexpected character after"
        + " closing quote: 'c' (0x63)");
  }

  // ------------------------------------------------------------------ UTF-8

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 5, 6, 7, 8, 9, 10, 13, 1 << 20})
  void multiByteCharactersSplitAcrossTheBufferReadBack(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    // 2-, 3- and 4-byte sequences after prefixes of every length, so that each falls on every boundary
    String[] chars = {"é", "€", "中", "😀", "\u0080", "\u07FF", "\u0800", "\uFFFD", "\uD83D\uDE00", "\uDBFF\uDFFF"};
    StringBuilder csv = new StringBuilder("k,s\n");
    List<String> expected = new ArrayList<>();
    int k = 0;
    for (String c : chars) {
      for (int pad = 0; pad < 12; pad++) {
        String s = "x".repeat(pad) + c + "y" + c + c;
        boolean quoted = pad % 3 == 0;
        csv.append(k).append(',').append(quoted ? "\"" + s + "\"" : s).append('\n');
        expected.add(k + "|" + s + "|");
        k++;
      }
    }
    assertThat(imported(write("utf8.csv", csv.toString()))).containsExactlyElementsOf(expected);
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 7, 1 << 20})
  void invalidUtf8IsTheOneLineErrorWithItsLine(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    byte[] head = "id,s\n1,ok\n2,\"q\nq\"\n".getBytes(StandardCharsets.UTF_8); // line 5 comes next
    int at = head.length + 2;
    String where = " line 5: invalid UTF-8 (byte 0x%02X at offset " + at + "); the file must be UTF-8 encoded";
    Path overlong = write("overlong.csv", bytes(head, "3,", 0xC0, 0xAF, "\n4,x\n"));
    assertThat(error(overlong)).isEqualTo("error: " + overlong + where.formatted(0xC0));
    Path overlong3 = write("overlong3.csv", bytes(head, "3,", 0xE0, 0x80, 0xAF, "\n"));
    assertThat(error(overlong3)).isEqualTo("error: " + overlong3 + where.formatted(0xE0));
    Path surrogate = write("surrogate.csv", bytes(head, "3,", 0xED, 0xA0, 0x80, "\n"));
    assertThat(error(surrogate)).isEqualTo("error: " + surrogate + where.formatted(0xED));
    Path lone = write("lone.csv", bytes(head, "3,", 0x80, "abc\n"));
    assertThat(error(lone)).isEqualTo("error: " + lone + where.formatted(0x80));
    Path truncated = write("truncated.csv", bytes(head, "3,caf", 0xC3));
    assertThat(error(truncated)).isEqualTo("error: " + truncated + " line 5: invalid UTF-8 (byte 0xC3 at offset "
        + (at + 3) + "); the file must be UTF-8 encoded");
    Path fourTruncated = write("four.csv", bytes(head, "3,", 0xF0, 0x9F, 0x98, "\n"));
    assertThat(error(fourTruncated)).isEqualTo("error: " + fourTruncated + where.formatted(0xF0));
    Path tooHigh = write("high.csv", bytes(head, "3,", 0xF4, 0x90, 0x80, 0x80, "\n"));
    assertThat(error(tooHigh)).isEqualTo("error: " + tooHigh + where.formatted(0xF4));
    // in a column of another type, and in the header: the same error, not a bad value
    Path number = write("number.csv", bytes(head, 0xFF, ",x\n"));
    assertThat(error(number, "--type", "id=int64")).isEqualTo("error: " + number + " line 5: invalid UTF-8 (byte"
        + " 0xFF at offset " + head.length + "); the file must be UTF-8 encoded");
    Path header = write("header.csv", bytes("id,caf", 0xE9, "\n1,2\n"));
    assertThat(error(header)).isEqualTo("error: " + header + " line 1: invalid UTF-8 (byte 0xE9 at offset 6);"
        + " the file must be UTF-8 encoded");
  }

  // ------------------------------------------------------------------ sizes, BOM, nulls, the last line

  @Test
  void aCellLongerThanTheBufferReadsBack() throws IOException {
    CsvSource.bufferSize = 16;
    String plain = "abcdé€😀".repeat(2000);
    String quoted = "a,\"b\"\nc".repeat(3000);
    Path in = write("long.csv", "id,s\n1," + plain + "\n2,\"" + quoted.replace("\"", "\"\"") + "\"\n3,"
        + "9".repeat(18) + "\n");
    assertThat(imported(in)).containsExactly("1|" + plain + "|", "2|" + quoted + "|", "3|" + "9".repeat(18) + "|");
    // the sample read it too: the third row's number did not make s an int64
    assertThat(ImportRoundTripTest.types(dir.resolve("t0").toUri().toString())).isEqualTo("int64,string");
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 5, 1 << 20})
  void theByteOrderMarkIsSkipped(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    Path in = write("bom.csv", "\uFEFFid,name\n1,a\n");
    String uri = dir.resolve("bom").toUri().toString();
    assertThat(CliRunner.run("import", uri, in.toString()).code()).isEqualTo(0);
    assertThat(CliRunner.run("scan", uri, "-f", "jsonl").out().trim()).isEqualTo("{\"id\":1,\"name\":\"a\"}");
    assertThat(imported(write("bom2.csv", "\uFEFF\"q\"\n2\n"), "--no-header")).containsExactly("q|", "2|");
    Path only = write("only.csv", "\uFEFF");
    assertThat(error(only)).isEqualTo("error: " + only + " is empty; the first line must name the columns");
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 6, 1 << 20})
  void theNullStringIsNullUnlessQuotedInText(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    Path in = write("null.csv", "n,s,t\nNULL,NULL,x\n\"NULL\",\"NULL\",NULLx\n1,,\"\"\n");
    assertThat(imported(in, "--null", "NULL", "--type", "n=int64")).containsExactly(
        "null|null|x|",
        "null|NULL|NULLx|",
        "1|||");
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(ints = {4, 1 << 20})
  void theLastLineWithOrWithoutALineBreak(int buffer) throws IOException {
    CsvSource.bufferSize = buffer;
    assertThat(imported(write("a.csv", "id,s\n1,a\n2,b"))).containsExactly("1|a|", "2|b|");
    assertThat(imported(write("b.csv", "id,s\n1,a\n\n\r\n\n"))).containsExactly("1|a|");
    assertThat(imported(write("c.csv", "id,s\n1,a\n2,"))).containsExactly("1|a|", "2|null|");
    assertThat(imported(write("d.csv", "id,s\r\n1,\"q\""))).containsExactly("1|q|");
    assertThat(imported(write("e.csv", "id,s\r\n1,a\r"))).containsExactly("1|a|");
  }

  @Test
  void theDelimiterAndQuoteMustBeAscii() throws IOException {
    Path in = write("x.csv", "a§b\n1§2\n");
    assertThat(error(in, "--delimiter", "§")).isEqualTo("error: --delimiter and --quote must be ASCII characters"
        + " other than a line break, got '§' and '\"'");
  }
}
