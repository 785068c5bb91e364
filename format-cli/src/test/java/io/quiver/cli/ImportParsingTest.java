package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written recognisers import uses (scalars for inference, UTF-8) agree with their specification. */
class ImportParsingTest {
  /** The float64 spelling inference accepted when it asked a regular expression (of the trimmed cell). */
  private static final Pattern DOUBLE = Pattern.compile(
      "[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?|[-+]?(inf|infinity|nan)", Pattern.CASE_INSENSITIVE);

  @Test
  void utf8ValidationAgreesWithTheJdksDecoder() {
    SplittableRandom r = new SplittableRandom(11);
    // bytes around every boundary of the UTF-8 table, mostly, and ASCII runs for the eight-byte path
    int[] interesting = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
    for (int i = 0; i < 200_000; i++) {
      byte[] b = new byte[r.nextInt(14)];
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) (r.nextInt(4) == 0 ? 'a' : interesting[r.nextInt(interesting.length)]);
      }
      boolean jdk;
      try {
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
        jdk = true;
      } catch (CharacterCodingException e) {
        jdk = false;
      }
      byte[] padded = new byte[b.length + 2];
      System.arraycopy(b, 0, padded, 1, b.length);
      assertThat(Utf8.valid(padded, 1, 1 + b.length)).as("%s", HexFormat.of().formatHex(b)).isEqualTo(jdk);
    }
  }

  @Test
  void isDoubleAgreesWithTheRegularExpression() {
    List<String> cells = new ArrayList<>(List.of("", " ", ".", "-", "+", "1", "-1", "+1", "1.", ".5", "-.5",
        "1.5", "1e5", "1E-5", "1e", "e5", "1.5e+3", " 2.5 ", "\t3\t", "inf", "-Inf", "+INFINITY", "NaN", "nan ",
        "infinit", "infinityy", "1,5", "1.5.5", "0x10", "1d", "1f", "--1", "1e5.5", "١", "İnf", "ınf", "Infinity",
        "\u00a01", "1 2"));
    SplittableRandom r = new SplittableRandom(7);
    String alphabet = "0123456789.eE+-infatyINFATY \t";
    for (int i = 0; i < 20_000; i++) {
      StringBuilder b = new StringBuilder();
      for (int n = r.nextInt(8); n > 0; n--) {
        b.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      cells.add(b.toString());
    }
    for (String cell : cells) {
      assertThat(ColumnWriter.isDouble(cell)).as("'%s'", cell).isEqualTo(DOUBLE.matcher(cell.trim()).matches());
      byte[] padded = ("x" + cell + "y").getBytes(StandardCharsets.UTF_8);
      assertThat(ColumnWriter.isDouble(padded, 1, padded.length - 2)).as("'%s' in a buffer", cell)
          .isEqualTo(DOUBLE.matcher(cell.trim()).matches());
    }
  }
}
