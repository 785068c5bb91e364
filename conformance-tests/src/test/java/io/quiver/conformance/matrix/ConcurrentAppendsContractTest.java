package io.quiver.conformance.matrix;

import io.quiver.conformance.ConcurrentAppendsContract;

/** {@link ConcurrentAppendsContract} on the fast stores (memory, local). */
@FastStores
class ConcurrentAppendsContractTest extends ConcurrentAppendsContract {}
