package io.quiver.flink.sink;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link QuiverSinkCases} on S3 (S3Proxy, {@link S3ProxyExtension}). */
class QuiverSinkS3IT extends QuiverSinkCases {
  @RegisterExtension
  static final S3ProxyExtension S3 = new S3ProxyExtension();

  @Override
  SinkStore store() {
    return S3.store();
  }
}
