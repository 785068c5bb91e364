package io.quiver.conformance.matrix;

import io.quiver.conformance.ObjectStoreCapabilityContract;

/** {@link ObjectStoreCapabilityContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class ObjectStoreCapabilityContractIT extends ObjectStoreCapabilityContract {}
