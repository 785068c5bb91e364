package io.quiver.conformance.matrix;

import io.quiver.conformance.DatasetStoreContract;

/** {@link DatasetStoreContract} on the fast stores (memory, local). */
@FastStores
class DatasetStoreContractTest extends DatasetStoreContract {}
