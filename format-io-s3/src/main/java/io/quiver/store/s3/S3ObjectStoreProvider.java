package io.quiver.store.s3;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.Keys;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Opens {@code s3://bucket} and {@code s3://bucket/prefix} URIs as {@link S3ObjectStore}s; the options
 * are described on {@link S3StoreOptions}. Registered for {@link java.util.ServiceLoader}.
 */
public final class S3ObjectStoreProvider implements ObjectStoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("s3");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    if (uri.isOpaque() || uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
      throw new InvalidArgumentException(
          "S3 store URI '" + uri + "' names no bucket; use s3://bucket or s3://bucket/prefix");
    }
    if (uri.getRawUserInfo() != null || uri.getPort() != -1) {
      // Never echo the URI here: its user info may be a secret.
      throw new InvalidArgumentException(
          "an S3 store URI must be s3://bucket/prefix, without user info or port; pass credentials as "
              + S3StoreOptions.ACCESS_KEY_ID + " / " + S3StoreOptions.SECRET_ACCESS_KEY + " and the endpoint as "
              + S3StoreOptions.ENDPOINT);
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new InvalidArgumentException(
          "S3 store URI '" + uri + "' has a query or fragment; settings go in the store options (s3.*)");
    }
    String bucket = uri.getAuthority();
    String path = uri.getPath() == null ? "" : uri.getPath();
    String prefix = path.replaceAll("^/+", "").replaceAll("/+$", "");
    if (!prefix.isEmpty() && !Keys.isValid(prefix)) {
      throw new InvalidArgumentException(
          "S3 store URI '" + uri + "' has an invalid prefix '" + prefix
              + "': no empty, '.' or '..' segments and no backslash");
    }
    return S3ObjectStore.open(bucket, prefix, S3StoreOptions.from(options));
  }
}
