package io.quiver.internal.file;

/**
 * What {@link DataFileWriter#finish()} published: enough for the table layer to record the file in a
 * manifest without reading it back.
 *
 * @param key the object key the file was published under
 * @param sizeBytes the object's size in bytes
 * @param rowCount rows in the file
 * @param formatMajor data file format major version ({@link DataFileWriter#FORMAT_MAJOR})
 * @param formatMinor data file format minor version ({@link DataFileWriter#FORMAT_MINOR})
 */
public record WrittenFile(String key, long sizeBytes, long rowCount, int formatMajor, int formatMinor) {}
