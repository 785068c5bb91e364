package io.quiver.conformance.matrix;

import io.quiver.conformance.ColumnEvolutionContract;

/** {@link ColumnEvolutionContract} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class ColumnEvolutionContractIT extends ColumnEvolutionContract {}
