package io.quiver.conformance.example;

import io.quiver.conformance.OnStores;
import io.quiver.conformance.StoreConformance;

/**
 * docs/adapter-guide.md's example: every suite on an adapter's store from one test class. Named so that
 * neither surefire nor failsafe runs it (the matrix already runs every suite on memory); run it with
 * {@code mvn -pl conformance-tests -am test -Dtest=ExampleConformance -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@OnStores(ExampleStoreFixture.class)
class ExampleConformance extends StoreConformance {}
