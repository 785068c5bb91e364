package io.quiver.conformance.matrix;

import io.quiver.conformance.ObjectStoreContract;

/** {@link ObjectStoreContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class ObjectStoreContractIT extends ObjectStoreContract {}
