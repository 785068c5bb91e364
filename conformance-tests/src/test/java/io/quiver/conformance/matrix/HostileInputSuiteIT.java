package io.quiver.conformance.matrix;

import io.quiver.conformance.HostileInputSuite;

/** {@link HostileInputSuite} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class HostileInputSuiteIT extends HostileInputSuite {}
