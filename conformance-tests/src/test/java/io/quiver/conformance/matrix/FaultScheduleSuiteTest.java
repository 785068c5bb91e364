package io.quiver.conformance.matrix;

import io.quiver.conformance.FaultScheduleSuite;

/** {@link FaultScheduleSuite} on the fast stores (memory, local). */
@FastStores
class FaultScheduleSuiteTest extends FaultScheduleSuite {}
