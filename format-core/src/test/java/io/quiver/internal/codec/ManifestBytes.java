package io.quiver.internal.codec;

import io.quiver.internal.proto.ManifestFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/** Test helper: edits the protobuf inside encoded manifest bytes and re-wraps it with a valid checksum. */
public final class ManifestBytes {
  private ManifestBytes() {}

  /** The protobuf inside {@code bytes} (an encoded manifest, magic QVM1), checksum not checked. */
  public static ManifestFile decode(byte[] bytes) {
    try {
      return ManifestFile.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code bytes} (an encoded manifest, magic QVM1) with {@code edit} applied, checksum recomputed. */
  public static byte[] rewrite(byte[] bytes, Consumer<ManifestFile.Builder> edit) {
    try {
      ManifestFile.Builder b = ManifestFile.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length)).toBuilder();
      edit.accept(b);
      byte[] payload = b.build().toByteArray();
      CRC32C crc = new CRC32C();
      crc.update(payload);
      return ByteBuffer.allocate(8 + payload.length)
          .put("QVM1".getBytes(StandardCharsets.US_ASCII))
          .putInt((int) crc.getValue())
          .put(payload)
          .array();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
