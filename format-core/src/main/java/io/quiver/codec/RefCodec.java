package io.quiver.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes reference files (tags).
 *
 * <p>Same envelope as manifests ({@link MetadataCodec}): 4 bytes of magic ({@code QVG1} for tags), the
 * CRC-32C of the payload as a big-endian 32-bit integer, then the protobuf payload ({@code
 * quiver.v1.Tag}).
 */
public final class RefCodec {
  private static final byte[] TAG_MAGIC = "QVG1".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER = 8;

  private RefCodec() {}

  /**
   * A decoded tag.
   *
   * @param version the version the tag names
   * @param created when the tag was created
   */
  public record TagRef(long version, Instant created) {
    public TagRef {
      if (version < 1) {
        throw new IllegalArgumentException("a tag names a version >= 1, got " + version);
      }
    }
  }

  public static byte[] encodeTag(TagRef tag) {
    byte[] payload =
        io.quiver.format.proto.Tag.newBuilder()
            .setVersion(tag.version())
            .setCreatedMillis(tag.created().toEpochMilli())
            .build()
            .toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(payload);
    ByteBuffer out = ByteBuffer.allocate(HEADER + payload.length);
    out.put(TAG_MAGIC).putInt((int) crc.getValue()).put(payload);
    return out.array();
  }

  /**
   * Decodes a tag file.
   *
   * @param location the file's store location, named in errors
   * @throws CorruptFileException if the bytes are not a valid tag file
   */
  public static TagRef decodeTag(byte[] bytes, String location) {
    if (bytes.length < HEADER) {
      throw new CorruptFileException(
          location, "tag file is " + bytes.length + " bytes; expected at least an " + HEADER + "-byte header");
    }
    if (!Arrays.equals(bytes, 0, 4, TAG_MAGIC, 0, 4)) {
      throw new CorruptFileException(location, "expected magic QVG1 for a tag file, found " + hex(bytes, 4));
    }
    int expected = ByteBuffer.wrap(bytes, 4, 4).getInt();
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER, bytes.length - HEADER);
    if ((int) crc.getValue() != expected) {
      throw new CorruptFileException(
          location,
          "checksum mismatch (expected CRC-32C " + Integer.toHexString(expected) + ", computed "
              + Long.toHexString(crc.getValue()) + "): the file is truncated or damaged");
    }
    io.quiver.format.proto.Tag tag;
    try {
      tag = io.quiver.format.proto.Tag.parseFrom(Arrays.copyOfRange(bytes, HEADER, bytes.length));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "tag payload is not valid protobuf: " + e.getMessage(), e);
    }
    if (tag.getVersion() < 1) {
      throw new CorruptFileException(location, "tag names version " + tag.getVersion() + "; expected >= 1");
    }
    return new TagRef(tag.getVersion(), Instant.ofEpochMilli(tag.getCreatedMillis()));
  }

  private static String hex(byte[] b, int n) {
    StringBuilder s = new StringBuilder("0x");
    for (int i = 0; i < n; i++) {
      s.append(String.format("%02x", b[i]));
    }
    return s.toString();
  }
}
