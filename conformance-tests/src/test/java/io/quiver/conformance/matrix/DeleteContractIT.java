package io.quiver.conformance.matrix;

import io.quiver.conformance.DeleteContract;

/** {@link DeleteContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class DeleteContractIT extends DeleteContract {}
