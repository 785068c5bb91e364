package io.quiver.conformance.matrix;

import io.quiver.conformance.DeleteContract;

/** {@link DeleteContract} on the fast stores (memory, local). */
@FastStores
class DeleteContractTest extends DeleteContract {}
