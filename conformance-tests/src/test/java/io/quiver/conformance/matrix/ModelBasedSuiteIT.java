package io.quiver.conformance.matrix;

import io.quiver.conformance.ModelBasedSuite;

/** {@link ModelBasedSuite} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class ModelBasedSuiteIT extends ModelBasedSuite {}
