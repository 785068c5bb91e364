package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The truncation rule of string and binary bounds (docs/format.md §3.1). */
class StatValuesTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String lower(String s) {
    byte[] b = utf8(s);
    return new String(StatValues.truncateLower(b, b.length, true), StandardCharsets.UTF_8);
  }

  private static Optional<String> upper(String s) {
    byte[] b = utf8(s);
    return StatValues.truncateUpper(b, b.length, true).map(u -> new String(u, StandardCharsets.UTF_8));
  }

  @Test
  void shortValuesAreKeptWhole() {
    assertThat(lower("abc")).isEqualTo("abc");
    assertThat(upper("abc")).contains("abc");
    String sixteen = "0123456789abcdef";
    assertThat(lower(sixteen)).isEqualTo(sixteen);
    assertThat(upper(sixteen)).contains(sixteen);
    byte[] bin = new byte[16];
    assertThat(StatValues.truncateUpper(bin, 16, false)).hasValueSatisfying(u -> assertThat(u).isEqualTo(bin));
  }

  @Test
  void longStringsKeepSixteenCodePointsAndIncrementTheLast() {
    String s = "0123456789abcdefXYZ";
    assertThat(lower(s)).isEqualTo("0123456789abcdef");
    assertThat(upper(s)).contains("0123456789abcdeg");
    // Code points, not bytes or UTF-16 units: 16 emoji (4 bytes, 2 chars each) are kept whole.
    String emoji = "😀".repeat(20);
    assertThat(lower(emoji)).isEqualTo("😀".repeat(16));
    assertThat(upper(emoji)).contains("😀".repeat(15) + new String(Character.toChars(0x1F601)));
  }

  @Test
  void incrementSkipsSurrogatesAndCarriesOverMaxCodePoints() {
    String beforeSurrogates = "a".repeat(15) + "\uD7FF" + "zz";
    assertThat(upper(beforeSurrogates)).contains("a".repeat(15) + "\uE000");
    String max = new String(Character.toChars(Character.MAX_CODE_POINT));
    String carry = "a".repeat(14) + "b" + max + "tail";
    assertThat(upper(carry)).contains("a".repeat(14) + "c");
    // Every code point of the prefix is U+10FFFF: no upper bound exists.
    assertThat(upper(max.repeat(17))).isEmpty();
    assertThat(lower(max.repeat(17))).isEqualTo(max.repeat(16));
  }

  @Test
  void binaryTruncatesToSixteenBytesAndDropsTrailingMaxBytes() {
    byte[] v = new byte[20];
    Arrays.fill(v, (byte) 7);
    v[15] = (byte) 0xFF;
    assertThat(StatValues.truncateLower(v, v.length, false)).hasSize(16);
    byte[] expected = Arrays.copyOf(v, 15);
    expected[14] = 8;
    assertThat(StatValues.truncateUpper(v, v.length, false)).hasValueSatisfying(u -> assertThat(u).isEqualTo(expected));
    byte[] allMax = new byte[17];
    Arrays.fill(allMax, (byte) 0xFF);
    assertThat(StatValues.truncateUpper(allMax, allMax.length, false)).isEmpty();
  }

  @Test
  void boundsOrderEveryValueWithThePrefixInByteOrder() {
    Random random = new Random(17);
    for (int i = 0; i < 2000; i++) {
      int len = random.nextInt(30);
      StringBuilder sb = new StringBuilder();
      for (int k = 0; k < len; k++) {
        int cp = switch (random.nextInt(4)) {
          case 0 -> 'a' + random.nextInt(3);
          case 1 -> 0x7F + random.nextInt(3);
          case 2 -> 0xFFFF - random.nextInt(2);
          default -> Character.MAX_CODE_POINT - random.nextInt(2);
        };
        sb.appendCodePoint(cp);
      }
      byte[] value = utf8(sb.toString());
      byte[] lo = StatValues.truncateLower(value, value.length, true);
      assertThat(Arrays.compareUnsigned(lo, value)).isLessThanOrEqualTo(0);
      StatValues.truncateUpper(value, value.length, true)
          .ifPresent(hi -> assertThat(Arrays.compareUnsigned(hi, value)).isGreaterThanOrEqualTo(0));
      byte[] bin = new byte[random.nextInt(24)];
      for (int k = 0; k < bin.length; k++) {
        bin[k] = (byte) (random.nextBoolean() ? 0xFF : random.nextInt(256));
      }
      assertThat(Arrays.compareUnsigned(StatValues.truncateLower(bin, bin.length, false), bin)).isLessThanOrEqualTo(0);
      StatValues.truncateUpper(bin, bin.length, false)
          .ifPresent(hi -> assertThat(Arrays.compareUnsigned(hi, bin)).isGreaterThanOrEqualTo(0));
    }
  }
}
