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

  /**
   * Rewrites the version file at {@code key} of the table in {@code store} with {@code edit} applied. A segmented
   * version (format 1.2) is first flattened into the single-file layout (format 1.1: every fragment inline, no
   * root), so an edit of {@code manifest.fragments} sees every fragment: the fragment decoding under test is the
   * same for both layouts. Hostile roots and segments have their own cases.
   */
  public static void rewrite(io.quiver.store.ObjectStore store, String key, Consumer<ManifestFile.Builder> edit) {
    store.write(key, rewrite(flatten(store, store.read(key)), edit));
  }

  /** {@code versionFile} in the single-file layout: its root's manifest with every segment's fragments inline. */
  public static byte[] flatten(io.quiver.store.ObjectStore store, byte[] versionFile) {
    ManifestFile file = decode(versionFile);
    if (!file.hasRoot()) {
      return versionFile;
    }
    try {
      byte[] root = store.read(file.getRoot().getPath());
      io.quiver.internal.proto.Manifest m =
          io.quiver.internal.proto.Manifest.parseFrom(Arrays.copyOfRange(root, 8, root.length));
      io.quiver.internal.proto.Manifest.Builder flat = m.toBuilder().clearSegments().clearFragments()
          .clearReaderFeatures().clearWriterFeatures();
      m.getReaderFeaturesList().stream().filter(f -> !f.equals("segmented-manifest")).forEach(flat::addReaderFeatures);
      m.getWriterFeaturesList().stream().filter(f -> !f.equals("segmented-manifest")).forEach(flat::addWriterFeatures);
      flat.setFormatVersion(m.getFormatVersion().toBuilder().setMinor(1));
      for (io.quiver.internal.proto.SegmentRef ref : m.getSegmentsList()) {
        byte[] seg = store.read(ref.getPath());
        flat.addAllFragments(io.quiver.internal.proto.ManifestSegment.parseFrom(Arrays.copyOfRange(seg, 8, seg.length))
            .getFragmentsList());
      }
      flat.addAllFragments(m.getFragmentsList());
      // Inline a config that keeps the table single-file, as the edited version now is.
      flat.putConfig("manifest.layout", "single");
      return rewrite(versionFile, b -> b.clearRoot().setManifest(flat));
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
