package io.quiver.conformance.matrix;

import io.quiver.conformance.HostileInputSuite;

/** {@link HostileInputSuite} on the fast stores (memory, local). */
@FastStores
class HostileInputSuiteTest extends HostileInputSuite {}
