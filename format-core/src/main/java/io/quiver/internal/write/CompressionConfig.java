package io.quiver.internal.write;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.file.FileCompression;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The body compression of the data files a table's writers write, from the table configuration:
 *
 * <ul>
 *   <li>{@value #CODEC_KEY}: {@code zstd} (the default) or {@code none} (format 1.0 files);
 *   <li>{@value #LEVEL_KEY}: the ZSTD level, {@link FileCompression#minLevel()} to {@link
 *       FileCompression#maxLevel()}, default {@value #DEFAULT_LEVEL};
 *   <li>{@value #MIN_SAVINGS_KEY}: the least fraction of a buffer's bytes compression must save for the
 *       buffer to be stored compressed, from 0 (any saving) to below 1, default {@value
 *       FileCompression#DEFAULT_MIN_SAVINGS}; other buffers are stored uncompressed inside the compressed body;
 *   <li>{@value #EXCLUDE_KEY}: a comma-separated list of field ids or dotted paths whose atomic fields are
 *       stored uncompressed (a struct excludes all its members), e.g. {@code embedding, 7}: wide float
 *       vectors rarely compress, and an uncompressed column reads without decompression. An entry made of
 *       digits only is a field id. Entries naming no field of the file being written are ignored, so a
 *       dropped column does not break writes;
 *   <li>{@value #FRAME_BYTES_KEY}: uncompressed bytes per ZSTD frame, a power of two from {@link
 *       FileCompression#MIN_FRAME_BYTES} to {@link FileCompression#MAX_FRAME_BYTES}, default {@link
 *       FileCompression#DEFAULT_FRAME_BYTES}: a take decompresses whole frames, so small frames make point
 *       reads cheap, and larger ones compress faster (tables read mostly by scans). Each file's frame table
 *       records the size it was written with, so a table's files may differ.
 * </ul>
 *
 * Every writing operation (append, overwrite, add/replace columns, staged column writes, overlays,
 * compaction) reads the configuration of the version it builds on.
 */
public record CompressionConfig(FileCompression.Codec codec, int level, double minSavings, List<String> exclude,
    int frameBytes) {
  public static final String CODEC_KEY = "write.compression";
  public static final String LEVEL_KEY = "write.compression.level";
  public static final String EXCLUDE_KEY = "write.compression.exclude";
  public static final String MIN_SAVINGS_KEY = "write.compression.min-savings";
  public static final String FRAME_BYTES_KEY = "write.compression.frame-bytes";

  /** ZSTD by default: see "Body compression" in benchmarks/RESULTS.md for the measurements. */
  public static final FileCompression.Codec DEFAULT_CODEC = FileCompression.Codec.ZSTD;

  public static final int DEFAULT_LEVEL = FileCompression.DEFAULT_ZSTD_LEVEL;

  /** Uncompressed files, whatever the table says (tests, tools). */
  public static final CompressionConfig NONE =
      new CompressionConfig(FileCompression.Codec.NONE, 0, 0, List.of(), FileCompression.DEFAULT_FRAME_BYTES);

  public CompressionConfig {
    exclude = List.copyOf(exclude);
  }

  /**
   * The compression {@code config} sets, defaults for absent keys.
   *
   * @throws InvalidArgumentException if a key holds a value it cannot (naming the key, the value and what is
   *     accepted)
   */
  public static CompressionConfig of(Map<String, String> config) {
    String codecValue = config.get(CODEC_KEY);
    FileCompression.Codec codec = DEFAULT_CODEC;
    if (codecValue != null) {
      codec = switch (codecValue.trim().toLowerCase(Locale.ROOT)) {
        case "zstd" -> FileCompression.Codec.ZSTD;
        case "none" -> FileCompression.Codec.NONE;
        default -> throw new InvalidArgumentException(
            "table configuration " + CODEC_KEY + " is '" + codecValue + "'; expected zstd or none (Quiver writes"
                + " no other codec; readers also accept LZ4_FRAME files from other writers)");
      };
    }
    int level = DEFAULT_LEVEL;
    String levelValue = config.get(LEVEL_KEY);
    if (levelValue != null) {
      try {
        level = Integer.parseInt(levelValue.trim());
      } catch (NumberFormatException e) {
        level = Integer.MIN_VALUE;
      }
      if (level < FileCompression.minLevel() || level > FileCompression.maxLevel()) {
        throw new InvalidArgumentException(
            "table configuration " + LEVEL_KEY + " is '" + levelValue + "'; expected a ZSTD level from "
                + FileCompression.minLevel() + " to " + FileCompression.maxLevel() + " (default " + DEFAULT_LEVEL
                + ")");
      }
    }
    double minSavings = FileCompression.DEFAULT_MIN_SAVINGS;
    String savingsValue = config.get(MIN_SAVINGS_KEY);
    if (savingsValue != null) {
      try {
        minSavings = Double.parseDouble(savingsValue.trim());
      } catch (NumberFormatException e) {
        minSavings = Double.NaN;
      }
      if (!(minSavings >= 0 && minSavings < 1)) {
        throw new InvalidArgumentException(
            "table configuration " + MIN_SAVINGS_KEY + " is '" + savingsValue + "'; expected a fraction from 0 to"
                + " below 1 (0.25 keeps a buffer compressed when that saves a quarter of its bytes; default "
                + FileCompression.DEFAULT_MIN_SAVINGS + ")");
      }
    }
    int frameBytes = FileCompression.DEFAULT_FRAME_BYTES;
    String frameValue = config.get(FRAME_BYTES_KEY);
    if (frameValue != null) {
      long n;
      try {
        n = Long.parseLong(frameValue.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (!FileCompression.isFrameBytes(n)) {
        throw new InvalidArgumentException(
            "table configuration " + FRAME_BYTES_KEY + " is '" + frameValue + "'; expected uncompressed bytes per"
                + " ZSTD frame, a power of two from " + FileCompression.MIN_FRAME_BYTES + " to "
                + FileCompression.MAX_FRAME_BYTES + " (default " + FileCompression.DEFAULT_FRAME_BYTES
                + "); set it to one such as 4096, or remove the key for the default");
      }
      frameBytes = (int) n;
    }
    List<String> exclude = new ArrayList<>();
    String excludeValue = config.get(EXCLUDE_KEY);
    if (excludeValue != null) {
      for (String entry : excludeValue.split(",", -1)) {
        String e = entry.trim();
        if (e.isEmpty()) {
          if (excludeValue.isBlank()) {
            continue;
          }
          throw new InvalidArgumentException(
              "table configuration " + EXCLUDE_KEY + " is '" + excludeValue + "', which has an empty entry;"
                  + " expected field ids or dotted paths separated by commas");
        }
        exclude.add(e);
      }
    }
    return new CompressionConfig(codec, codec == FileCompression.Codec.NONE ? 0 : level, minSavings, exclude,
        frameBytes);
  }

  /** Checks the compression keys among {@code upserts} (a configuration update). */
  public static void check(Map<String, String> upserts) {
    of(upserts);
  }

  /**
   * The compression of one data file storing the atomic fields of {@code written} (a schema with ids,
   * in file column order): excluded fields stay plain.
   */
  public FileCompression forFile(Schema written) {
    if (codec == FileCompression.Codec.NONE) {
      return FileCompression.NONE;
    }
    Set<Integer> plain = new HashSet<>();
    List<Field> atomic = written.atomicFields();
    for (int c = 0; c < atomic.size(); c++) {
      if (excluded(written, atomic.get(c))) {
        plain.add(c);
      }
    }
    return new FileCompression(codec, level, plain, minSavings, frameBytes);
  }

  private boolean excluded(Schema schema, Field field) {
    if (exclude.isEmpty()) {
      return false;
    }
    for (Optional<Field> f = Optional.of(field); f.isPresent(); f = schema.parentOf(f.get().id())) {
      int id = f.get().id();
      if (exclude.contains(Integer.toString(id)) || exclude.contains(schema.pathOf(id))) {
        return true;
      }
    }
    return false;
  }
}
