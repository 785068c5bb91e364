package io.quiver.conformance.matrix;

import io.quiver.conformance.UpdateStoreContract;

/** {@link UpdateStoreContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class UpdateStoreContractIT extends UpdateStoreContract {}
