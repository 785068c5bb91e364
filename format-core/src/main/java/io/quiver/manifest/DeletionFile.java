package io.quiver.manifest;

/**
 * A portable-format RoaringBitmap of a fragment's deleted physical offsets.
 *
 * @param path relative path under {@code _deletions/}
 * @param deletedRows number of offsets in the bitmap
 * @param sizeBytes file size
 */
public record DeletionFile(String path, long deletedRows, long sizeBytes) {
  /** Prefix of every deletion-file path. */
  public static final String DELETIONS_PREFIX = "_deletions/";

  public DeletionFile {
    DataFile.requirePath(path, DELETIONS_PREFIX, "deletion file");
    if (deletedRows < 0 || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "deletion file " + path + " has negative row count or size: " + deletedRows + ", " + sizeBytes);
    }
  }
}
