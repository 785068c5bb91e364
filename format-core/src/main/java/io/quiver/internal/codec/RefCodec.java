package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Encodes and decodes reference files (tags).
 *
 * <p>Same envelope as manifests ({@link MetadataCodec}): 4 bytes of magic ({@code QVG1} for tags), the
 * CRC-32C of the payload as a big-endian 32-bit integer, then the protobuf payload ({@code
 * quiver.v1.Tag}).
 */
public final class RefCodec {
  private static final byte[] TAG_MAGIC = "QVG1".getBytes(StandardCharsets.US_ASCII);

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
    return MetadataCodec.envelope(
        TAG_MAGIC,
        MetadataCodec.deterministic(
            io.quiver.internal.proto.Tag.newBuilder()
                .setVersion(tag.version())
                .setCreatedMillis(tag.created().toEpochMilli())
                .build()));
  }

  /**
   * Decodes a tag file.
   *
   * @param location the file's store location, named in errors
   * @throws CorruptFileException if the bytes are not a valid tag file
   */
  public static TagRef decodeTag(byte[] bytes, String location) {
    byte[] payload = MetadataCodec.open(TAG_MAGIC, bytes, location, "tag");
    io.quiver.internal.proto.Tag tag;
    try {
      tag = io.quiver.internal.proto.Tag.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "tag payload is not valid protobuf: " + e.getMessage(), e);
    }
    if (tag.getVersion() < 1) {
      throw new CorruptFileException(location, "tag names version " + tag.getVersion() + "; expected >= 1");
    }
    return new TagRef(tag.getVersion(), Instant.ofEpochMilli(tag.getCreatedMillis()));
  }
}
