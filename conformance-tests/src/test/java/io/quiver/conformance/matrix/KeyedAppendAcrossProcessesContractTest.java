package io.quiver.conformance.matrix;

import io.quiver.conformance.KeyedAppendAcrossProcessesContract;

/** {@link KeyedAppendAcrossProcessesContract} on the fast stores (memory, local). */
@FastStores
class KeyedAppendAcrossProcessesContractTest extends KeyedAppendAcrossProcessesContract {}
