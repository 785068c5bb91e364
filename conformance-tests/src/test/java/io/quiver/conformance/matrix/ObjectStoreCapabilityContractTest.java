package io.quiver.conformance.matrix;

import io.quiver.conformance.ObjectStoreCapabilityContract;

/** {@link ObjectStoreCapabilityContract} on the fast stores (memory, local). */
@FastStores
class ObjectStoreCapabilityContractTest extends ObjectStoreCapabilityContract {}
