package io.quiver.conformance.matrix;

import io.quiver.conformance.CatalogueScenarios;

/** {@link CatalogueScenarios} on the emulated stores (S3, GCS, Azure). */
@EmulatedStores
class CatalogueScenariosIT extends CatalogueScenarios {}
