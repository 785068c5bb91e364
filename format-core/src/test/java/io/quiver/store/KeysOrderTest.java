package io.quiver.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class KeysOrderTest {

  @Property(tries = 2000)
  void orderIsUtf8ByteOrder(@ForAll String a, @ForAll String b) {
    // jqwik strings may hold lone surrogates, which UTF-8 cannot encode; compare code points instead.
    int expected = Integer.signum(Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()));
    assertThat(Integer.signum(Keys.compare(a, b))).as(() -> a + " vs " + b).isEqualTo(expected);
  }

  @Test
  void supplementaryCharactersSortAfterTheEndOfTheBmp() {
    String bmpEnd = "\ue000";
    String emoji = "\uD83D\uDE00";
    assertThat(bmpEnd.compareTo(emoji) > 0).as("String order gets this wrong").isTrue();
    assertThat(Keys.compare(bmpEnd, emoji) < 0).isTrue();
    assertThat(Arrays.compareUnsigned(bmpEnd.getBytes(UTF_8), emoji.getBytes(UTF_8)) < 0).isTrue();
  }
}
