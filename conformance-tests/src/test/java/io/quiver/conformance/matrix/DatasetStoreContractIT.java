package io.quiver.conformance.matrix;

import io.quiver.conformance.DatasetStoreContract;

/** {@link DatasetStoreContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class DatasetStoreContractIT extends DatasetStoreContract {}
