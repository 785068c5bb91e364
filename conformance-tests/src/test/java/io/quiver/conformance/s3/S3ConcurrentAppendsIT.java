package io.quiver.conformance.s3;

import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.emulator.S3ProxyEmulator;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** B1 on S3Proxy: concurrent appends, each handle opened by s3:// URI through ServiceLoader. */
class S3ConcurrentAppendsIT extends ConcurrentAppendsContract {
  private static final String BUCKET = "quiver-appends";
  private static S3ProxyEmulator s3proxy;

  @BeforeAll
  static void startEmulator() {
    s3proxy = S3ProxyEmulator.start();
    s3proxy.createBucket(BUCKET);
  }

  @AfterAll
  static void stopEmulator() {
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  @Override
  protected String newTableUri() {
    return "s3://" + BUCKET + "/" + UUID.randomUUID() + "/table";
  }

  @Override
  protected Map<String, String> storeOptions() {
    return s3proxy.storeOptions();
  }
}
