package io.quiver.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.MetadataCodec.ManifestAndTransaction;
import io.quiver.internal.proto.ManifestFile;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {
  private static final String PATH = "memory://t/_versions/x.manifest";

  @Provide
  Arbitrary<ManifestArbitraries.Committed> committed() {
    return ManifestArbitraries.committed();
  }

  @Property(tries = 200)
  void manifestsRoundTrip(@ForAll("committed") ManifestArbitraries.Committed c) {
    byte[] bytes = MetadataCodec.encodeManifest(c.manifest(), c.transaction());
    ManifestAndTransaction back = MetadataCodec.decodeManifest(bytes, PATH);
    assertThat(back.manifest()).isEqualTo(c.manifest());
    assertThat(back.transaction()).isEqualTo(c.transaction());
    // Deterministic: encoding the decoded value gives the same bytes.
    assertThat(Arrays.equals(bytes, MetadataCodec.encodeManifest(back.manifest(), back.transaction()))).isTrue();
    // The committer's shortcut reads the same transaction without decoding the manifest.
    assertThat(MetadataCodec.decodeManifestTransaction(bytes, PATH)).isEqualTo(c.transaction());
  }

  @Property(tries = 100)
  void transactionsRoundTrip(@ForAll("committed") ManifestArbitraries.Committed c) {
    byte[] bytes = MetadataCodec.encodeTransaction(c.transaction());
    assertThat(MetadataCodec.decodeTransaction(bytes, PATH)).isEqualTo(c.transaction());
  }

  @Property(tries = 50)
  void everyTruncationIsACorruptFileNamingThePath(@ForAll("committed") ManifestArbitraries.Committed c) {
    byte[] bytes = MetadataCodec.encodeManifest(c.manifest(), c.transaction());
    for (int length = 0; length < bytes.length; length += Math.max(1, bytes.length / 64)) {
      byte[] truncated = Arrays.copyOf(bytes, length);
      CorruptFileException e =
          assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifest(truncated, PATH)).actual();
      assertThat(e.getMessage()).contains(PATH);
      assertThat(e.path()).isEqualTo(PATH);
      CorruptFileException t =
          assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifestTransaction(truncated, PATH)).actual();
      assertThat(t.path()).isEqualTo(PATH);
    }
  }

  @Property(tries = 50)
  void everyFlippedByteIsACorruptFile(
      @ForAll("committed") ManifestArbitraries.Committed c, @ForAll("positions") double where,
      @ForAll("masks") int mask) {
    byte[] bytes = MetadataCodec.encodeManifest(c.manifest(), c.transaction());
    int at = (int) (where * (bytes.length - 1));
    bytes[at] ^= (byte) mask;
    CorruptFileException e =
        assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
    assertThat(e.getMessage()).contains(PATH);
    assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifestTransaction(bytes, PATH));
  }

  @Provide
  Arbitrary<Double> positions() {
    return Arbitraries.doubles().between(0, 1);
  }

  @Provide
  Arbitrary<Integer> masks() {
    return Arbitraries.integers().between(1, 255);
  }

  @Test
  void aTransactionFileIsNotAManifest() {
    ManifestArbitraries.Committed c = ManifestArbitraries.committed().sample();
    byte[] txn = MetadataCodec.encodeTransaction(c.transaction());
    CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifest(txn, PATH)).actual();
    assertThat(e.getMessage()).contains("expected magic QVM1");
  }

  @Test
  void unknownMajorFormatVersionIsRefusedNamingIt() {
    byte[] bytes = rewrite(b -> b.getManifestBuilder().getFormatVersionBuilder().setMajor(2).setMinor(7));
    UnsupportedFormatException e =
        assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
    assertThat(e.getMessage()).contains("format 2.7").contains(PATH).contains("upgrade");
  }

  @Test
  void anOperationOfANewerQuiverIsRefusedNamingItsFieldNumber() {
    byte[] bytes = rewrite(b -> {
      io.quiver.internal.proto.Transaction.Builder t = b.getTransactionBuilder().clearOperation();
      t.setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
          .addField(199, com.google.protobuf.UnknownFieldSet.Field.newBuilder()
              .addLengthDelimited(com.google.protobuf.ByteString.EMPTY).build())
          .build());
    });
    UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class)
        .isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
    assertThat(e.getMessage()).contains("transaction field 199").contains("newer Quiver").contains("upgrade");
  }

  @Test
  void newerMinorVersionIsRead() {
    ManifestArbitraries.Committed c = ManifestArbitraries.committed().sample();
    byte[] bytes = rewrite(c, b -> b.getManifestBuilder().getFormatVersionBuilder().setMinor(9));
    assertThat(MetadataCodec.decodeManifest(bytes, PATH).manifest()).isEqualTo(c.manifest());
  }

  @Test
  void unknownReaderFeatureIsRefusedNamingIt() {
    byte[] bytes = rewrite(b -> b.getManifestBuilder().addReaderFeatures("time-machine"));
    UnsupportedFormatException e =
        assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
    assertThat(e.getMessage()).contains("'time-machine'");
  }

  @Test
  void pathsEscapingTheRootAreRejected() {
    for (String hostile : new String[] {"../outside.arrow", "/etc/passwd", "s3://other/x.arrow", "data/../../x",
        "data//x.arrow", "elsewhere/x.arrow"}) {
      byte[] bytes =
          rewrite(b -> {
            var m = b.getManifestBuilder();
            m.clearFragments();
            m.setMaxFragmentId(0);
            m.addFragments(
                io.quiver.internal.proto.Fragment.newBuilder()
                    .setId(0)
                    .setPhysicalRows(1)
                    .addFiles(
                        io.quiver.internal.proto.DataFile.newBuilder().setPath(hostile).setFileMajor(1)));
          });
      CorruptFileException e =
          assertThatExceptionOfType(CorruptFileException.class).as(hostile).isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
      assertThat(e.getMessage()).contains(hostile);
    }
  }

  @Test
  void absurdRowCountsAreRejected() {
    byte[] bytes =
        rewrite(b -> {
          var m = b.getManifestBuilder();
          m.clearFragments();
          m.setMaxFragmentId(0);
          m.addFragments(io.quiver.internal.proto.Fragment.newBuilder().setId(0).setPhysicalRows(-1L));
        });
    CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> MetadataCodec.decodeManifest(bytes, PATH)).actual();
    assertThat(e.getMessage()).contains("physical rows");
  }

  /** Encodes a sample, edits the protobuf, and re-wraps it with a valid checksum. */
  private static byte[] rewrite(java.util.function.Consumer<ManifestFile.Builder> edit) {
    return rewrite(ManifestArbitraries.committed().sample(), edit);
  }

  private static byte[] rewrite(ManifestArbitraries.Committed c, java.util.function.Consumer<ManifestFile.Builder> edit) {
    return ManifestBytes.rewrite(MetadataCodec.encodeManifest(c.manifest(), c.transaction()), edit);
  }
}
