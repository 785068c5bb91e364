package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written scalar recognisers import's inference uses agree with their specification. */
class ImportParsingTest {
  /** The float64 spelling inference accepted when it asked a regular expression (of the trimmed cell). */
  private static final Pattern DOUBLE = Pattern.compile(
      "[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?|[-+]?(inf|infinity|nan)", Pattern.CASE_INSENSITIVE);

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
