package io.quiver.conformance.s3;

import io.quiver.conformance.CatalogueScenarios;
import io.quiver.conformance.S3StoreFixture;
import io.quiver.conformance.StoreFixture;

/** The race catalogue on the S3 store. */
class S3ScenariosIT extends CatalogueScenarios {
  @Override
  protected StoreFixture fixture() {
    return S3StoreFixture.INSTANCE;
  }
}
