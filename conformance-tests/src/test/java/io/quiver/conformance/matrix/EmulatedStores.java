package io.quiver.conformance.matrix;

import io.quiver.conformance.AzureStoreFixture;
import io.quiver.conformance.GcsStoreFixture;
import io.quiver.conformance.OnStores;
import io.quiver.conformance.S3StoreFixture;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The stores of the emulator tier, run by failsafe ({@code mvn verify}, classes named {@code *IT}): S3 on
 * S3Proxy, GCS on fake-gcs-server, Azure on Azurite, one after the other; each emulator is started by the
 * first test of a class that needs it and stopped when the class is done on that store.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@OnStores({S3StoreFixture.class, GcsStoreFixture.class, AzureStoreFixture.class})
public @interface EmulatedStores {}
