package io.quiver.store;

import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Service-provider interface of a store adapter, discovered with {@link java.util.ServiceLoader}: an
 * adapter jar lists its implementation in {@code META-INF/services/io.quiver.store.ObjectStoreProvider}.
 */
public interface ObjectStoreProvider {

  /** Lower-case URI schemes this provider opens, e.g. {@code s3} or {@code file}. */
  Set<String> schemes();

  /**
   * Opens a store rooted at {@code uri}.
   *
   * @param options adapter settings (endpoint, credentials, ...); keys this adapter does not know are
   *     ignored so that one option map can serve several adapters
   */
  ObjectStore open(URI uri, Map<String, String> options);
}
