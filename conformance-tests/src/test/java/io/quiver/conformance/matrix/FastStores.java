package io.quiver.conformance.matrix;

import io.quiver.conformance.LocalStoreFixture;
import io.quiver.conformance.MemoryStoreFixture;
import io.quiver.conformance.OnStores;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The stores of the fast tier, run by surefire ({@code mvn test}, classes named {@code *Test}): memory and local. */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@OnStores({MemoryStoreFixture.class, LocalStoreFixture.class})
public @interface FastStores {}
