package io.quiver.flink.sink;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link QuiverSinkToSourceCases} on S3 (S3Proxy, {@link S3ProxyExtension}, shared with {@link QuiverSinkS3IT}). */
class QuiverSinkToSourceS3IT extends QuiverSinkToSourceCases {
  @RegisterExtension
  static final S3ProxyExtension S3 = new S3ProxyExtension();

  @Override
  SinkStore store() {
    return S3.store();
  }
}
