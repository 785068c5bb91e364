package io.quiver.flink.sink;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * Where the sink cases' tables live: a store's options and fresh table URIs on it. {@link #local} is the local
 * store under a test's directory; {@link S3ProxyExtension#store()} is a bucket on S3Proxy.
 */
interface SinkStore {
  /** The store options every job and read of the case passes. */
  Map<String, String> options();

  /** A URI no table uses yet. */
  String newTableUri();

  static SinkStore local(Path dir) {
    return new SinkStore() {
      @Override
      public Map<String, String> options() {
        return SinkFixtures.LOCAL;
      }

      @Override
      public String newTableUri() {
        return dir.resolve("table-" + UUID.randomUUID()).toUri().toString();
      }
    };
  }
}
