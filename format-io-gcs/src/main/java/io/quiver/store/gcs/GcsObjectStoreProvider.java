package io.quiver.store.gcs;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.Keys;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Opens {@code gs://bucket} and {@code gs://bucket/prefix} stores; keys are relative to the prefix. Options
 * are described on {@link GcsStoreOptions}.
 */
public final class GcsObjectStoreProvider implements ObjectStoreProvider {
  /** GCS bucket naming: lower-case letters, digits, '-', '_' and '.', starting and ending alphanumerically. */
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");

  @Override
  public Set<String> schemes() {
    return Set.of("gs");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    String bucket = uri.getRawAuthority();
    if (uri.isOpaque() || bucket == null || bucket.isEmpty()) {
      throw new InvalidArgumentException(
          "GCS URI '" + uri + "' names no bucket; use gs://bucket or gs://bucket/path/to/table");
    }
    if (!BUCKET.matcher(bucket).matches()) {
      throw new InvalidArgumentException(
          "GCS URI '" + uri + "': '" + bucket + "' is not a valid bucket name (lower-case letters, digits, '-',"
              + " '_' and '.', 3 to 222 characters); credentials never go in the URI, pass them as options");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new InvalidArgumentException(
          "GCS URI '" + uri + "' has a query or fragment; use gs://bucket/path and pass settings as options");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    path = path.replaceAll("^/+", "").replaceAll("/+$", "");
    if (!path.isEmpty() && !Keys.isValid(path)) {
      throw new InvalidArgumentException(
          "GCS URI '" + uri + "' has an invalid path '" + path + "': no empty, '.' or '..' segments");
    }
    return new GcsObjectStore(bucket, path, GcsStoreOptions.parse(options));
  }
}
