package io.quiver.internal.codec;

/**
 * Test-only breakage of {@link MetadataCodec}'s integrity checks: the checksum of every metadata file, the size
 * a root or version file records for the file it names, and a segment's or segment list's agreement with what
 * its root says of it. Production never turns them off (the flag is false unless a test sets it); the data-loss
 * scenario F10's failing variant does, to show that a reader trusting any well-formed payload publishes a
 * state derived from a partly read manifest, which those checks refuse.
 */
final class IntegrityChecks {
  private static volatile boolean skipped;

  private IntegrityChecks() {}

  /** True unless a test switched the checks off. */
  static boolean on() {
    return !skipped;
  }

  /** Switches the checks off ({@code true}) or back on, for the tests of this package's test sources only. */
  static void skip(boolean skip) {
    skipped = skip;
  }
}
