package io.quiver.conformance.matrix;

import io.quiver.conformance.KeyedAppendAcrossProcessesContract;

/** {@link KeyedAppendAcrossProcessesContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class KeyedAppendAcrossProcessesContractIT extends KeyedAppendAcrossProcessesContract {}
