package io.quiver.conformance;

import io.quiver.conformance.emulator.S3ProxyEmulator;
import java.util.Map;
import java.util.UUID;

/** The S3 adapter on S3Proxy, started once per JVM on first use and stopped at exit. */
public final class S3StoreFixture implements StoreFixture {
  public static final S3StoreFixture INSTANCE = new S3StoreFixture();
  private static final String BUCKET = "quiver-conformance";
  private S3ProxyEmulator emulator;

  private S3StoreFixture() {}

  private synchronized S3ProxyEmulator emulator() {
    if (emulator == null) {
      S3ProxyEmulator started = S3ProxyEmulator.start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
      started.createBucket(BUCKET);
      emulator = started;
    }
    return emulator;
  }

  @Override
  public String name() {
    return "s3";
  }

  @Override
  public String newTableUri() {
    emulator();
    return "s3://" + BUCKET + "/" + UUID.randomUUID() + "/table";
  }

  @Override
  public Map<String, String> storeOptions() {
    return emulator().storeOptions();
  }
}
