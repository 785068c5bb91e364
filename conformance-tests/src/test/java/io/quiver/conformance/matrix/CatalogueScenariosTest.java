package io.quiver.conformance.matrix;

import io.quiver.conformance.CatalogueScenarios;

/** {@link CatalogueScenarios} on the fast stores (memory, local). */
@FastStores
class CatalogueScenariosTest extends CatalogueScenarios {}
