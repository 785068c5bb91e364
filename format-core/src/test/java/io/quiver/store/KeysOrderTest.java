package io.quiver.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class KeysOrderTest {

  @Property(tries = 2000)
  void orderIsUtf8ByteOrder(@ForAll String a, @ForAll String b) {
    // jqwik strings may hold lone surrogates, which UTF-8 cannot encode; compare code points instead.
    int expected = Integer.signum(Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()));
    assertEquals(expected, Integer.signum(Keys.compare(a, b)), () -> a + " vs " + b);
  }

  @Test
  void supplementaryCharactersSortAfterTheEndOfTheBmp() {
    String bmpEnd = "\ue000";
    String emoji = "\uD83D\uDE00";
    assertTrue(bmpEnd.compareTo(emoji) > 0, "String order gets this wrong");
    assertTrue(Keys.compare(bmpEnd, emoji) < 0);
    assertTrue(Arrays.compareUnsigned(bmpEnd.getBytes(UTF_8), emoji.getBytes(UTF_8)) < 0);
  }
}
