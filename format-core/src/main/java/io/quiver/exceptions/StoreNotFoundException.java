package io.quiver.exceptions;

/**
 * The store a URI names does not exist: no such bucket (S3, GCS), container (Azure) or root directory.
 * Nothing was read or written. Retrying will not help; check the URI (and the endpoint and region
 * options), or create the bucket or container first. Not to be confused with {@link TableNotFoundException},
 * which means the store exists but holds no table at the location.
 */
public class StoreNotFoundException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreNotFoundException(String message, Throwable cause) {
    super(message, cause, false);
  }
}
