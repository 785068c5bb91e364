package io.quiver.conformance;

import org.junit.jupiter.api.Assumptions;

/**
 * What a store may be unable to do, and so what a test may need: a fixture names the ones its store lacks
 * ({@link StoreFixture#lacks}), and a test that needs one calls {@link #assumeOn} first, so that on such a
 * store it is reported as skipped, with the store's reason, instead of failing or being left out.
 */
public enum Capability {
  /** Keys outside ASCII can be stored and read back (a file system's file-name encoding may not allow it). */
  NON_ASCII_KEYS,
  /**
   * Keys above U+FFFF are listed in UTF-8 byte order, as the port requires ({@code Keys.ORDER}); a store that
   * lists in UTF-16 order (an emulator that sorts Java or JavaScript strings) and an adapter that passes that
   * order through lack it.
   */
  UTF8_LISTING_ORDER,
  /**
   * Another JVM can open the same table from its URI and {@link StoreFixture#storeOptions()} (given as
   * {@code key=value} arguments): the cross-process suites start child processes. An in-process store lacks it.
   */
  SHARED_ACROSS_PROCESSES;

  /** Skips the calling test (a JUnit assumption) when {@code fixture}'s store lacks this capability. */
  public void assumeOn(StoreFixture fixture) {
    fixture.lacks(this).ifPresent(reason ->
        Assumptions.abort("lacks " + this + ": " + reason));
  }
}
