package io.quiver.conformance.matrix;

import io.quiver.conformance.FaultScheduleSuite;

/** {@link FaultScheduleSuite} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class FaultScheduleSuiteIT extends FaultScheduleSuite {}
