package io.quiver.internal.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a transaction accepts as its uuid: 1 to 64 hex digits and dashes, nothing else. */
class TransactionTest {
  static Transaction withUuid(String uuid) {
    return new Transaction(uuid, 3, new Operation.Append(List.of()), Map.of());
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-", "abcdefABCDEF0123456789-", "7d444840-9dc0-11d1-b245-5ffdce74fad2"})
  void acceptsHexDigitsAndDashes(String uuid) {
    assertThat(withUuid(uuid).path()).isEqualTo("_transactions/3-" + uuid + ".txn");
  }

  @Test
  void acceptsSixtyFourCharactersAndARandomUuid() {
    String random = UUID.randomUUID().toString();
    assertThat(withUuid(random).uuid()).isEqualTo(random);
    assertThat(withUuid("a".repeat(64)).uuid()).hasSize(64);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "g", "abc/def", "../x", "ab cd", "é", "0x1F", "١"})
  void refusesAnythingElse(String uuid) {
    assertThatThrownBy(() -> withUuid(uuid))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("transaction uuid must be hex digits and dashes, got '" + uuid + "'");
  }

  @Test
  void refusesSixtyFiveCharacters() {
    assertThatThrownBy(() -> withUuid("a".repeat(65))).isInstanceOf(IllegalArgumentException.class);
  }
}
