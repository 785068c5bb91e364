package io.quiver.conformance.matrix;

import io.quiver.conformance.ColumnEvolutionContract;

/** {@link ColumnEvolutionContract} on the fast stores (memory, local). */
@FastStores
class ColumnEvolutionContractTest extends ColumnEvolutionContract {}
