package io.quiver.internal.codec;

/**
 * The broken metadata reader of scenario F10's failing variant, for tests in any module: runs code with {@link
 * MetadataCodec}'s integrity checks (checksums, recorded sizes, a segment's agreement with its root) off, so that
 * any well-formed payload is trusted as the whole file.
 */
public final class BrokenCodec {
  private BrokenCodec() {}

  /** Runs {@code body} with the checks off, and turns them back on however it ends. */
  public static void withoutIntegrityChecks(Runnable body) {
    IntegrityChecks.skip(true);
    try {
      body.run();
    } finally {
      IntegrityChecks.skip(false);
    }
  }
}
