package io.quiver.conformance.matrix;

import io.quiver.conformance.ModelBasedSuite;

/** {@link ModelBasedSuite} on the fast stores (memory, local). */
@FastStores
class ModelBasedSuiteTest extends ModelBasedSuite {}
