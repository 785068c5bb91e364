package io.quiver.conformance.matrix;

import io.quiver.conformance.AzureAbfssStoreFixture;
import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.ConcurrentAppendsContract;
import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.OnStores;
import io.quiver.conformance.S3StoreFixture;

/**
 * {@link ConcurrentAppendsContract} on the emulated stores (S3, GCS, Azure), and on Azure with every handle
 * opened by {@code abfss://} URI, so that the ADLS Gen2 URI form is exercised end to end.
 */
@OnStores({S3StoreFixture.class, GcsStoreFixture.class, AzureStoreFixture.class, AzureAbfssStoreFixture.class})
class ConcurrentAppendsContractIT extends ConcurrentAppendsContract {}
