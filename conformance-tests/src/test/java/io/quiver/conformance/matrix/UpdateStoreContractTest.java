package io.quiver.conformance.matrix;

import io.quiver.conformance.UpdateStoreContract;

/** {@link UpdateStoreContract} on the fast stores (memory, local). */
@FastStores
class UpdateStoreContractTest extends UpdateStoreContract {}
