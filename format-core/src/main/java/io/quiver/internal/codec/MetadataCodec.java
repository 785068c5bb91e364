package io.quiver.internal.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.proto.FieldCoverage;
import io.quiver.internal.proto.FormatVersion;
import io.quiver.internal.proto.ManifestFile;
import io.quiver.internal.txn.FieldBacking;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/**
 * Encodes and decodes manifest and transaction files.
 *
 * <p>Every metadata file is an envelope: 4 bytes of magic ({@code QVM1} for manifests, {@code QVT1}
 * for transactions), the CRC-32C of the payload as a big-endian 32-bit integer, then the protobuf
 * payload ({@code quiver.v1.ManifestFile} or {@code quiver.v1.Transaction}). The checksum turns a
 * truncated or bit-flipped file into a {@link CorruptFileException} instead of a plausible but wrong
 * table state.
 */
public final class MetadataCodec {
  private static final byte[] MANIFEST_MAGIC = "QVM1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRANSACTION_MAGIC = "QVT1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ROOT_MAGIC = "QVR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SEGMENT_MAGIC = "QVS1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BATCH_MAGIC = "QVL1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LIST_MAGIC = "QVG1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LINEAGE_MAGIC = "QVN1".getBytes(StandardCharsets.US_ASCII);

  /** Prefix under which the root files of segmented versions live. */
  public static final String ROOTS_PREFIX = "_manifests/";
  private static final int HEADER = 8;

  private MetadataCodec() {}

  /**
   * A decoded manifest file: the table state and the transaction committed as it. The transaction of a
   * segmented version is decoded when first asked for (a reader of the table state never needs it, and the
   * transaction of a commit that wrote a million fragments is as large as their segments).
   */
  public static final class ManifestAndTransaction {
    private final Manifest manifest;
    private final java.util.function.Supplier<Transaction> transaction;

    public ManifestAndTransaction(Manifest manifest, Transaction transaction) {
      this(manifest, () -> transaction);
      Objects.requireNonNull(transaction, "transaction");
    }

    private ManifestAndTransaction(Manifest manifest, java.util.function.Supplier<Transaction> transaction) {
      this.manifest = Objects.requireNonNull(manifest, "manifest");
      this.transaction = transaction;
    }

    public Manifest manifest() {
      return manifest;
    }

    /**
     * The transaction committed as this version.
     *
     * @throws CorruptFileException if it is a segmented version's and its encoding is invalid
     */
    public Transaction transaction() {
      return transaction.get();
    }
  }

  /**
   * A version's files: the version file a commit claims, and for a segmented version the root file it names
   * (written before the claim; its segments' files too, from {@link io.quiver.manifest.FragmentList#unwritten()}).
   */
  public record EncodedVersion(byte[] versionFile, Optional<RootFile> root) {}

  /** A root file's relative path and bytes. */
  public record RootFile(String path, byte[] bytes) {}

  /** The relative path of the root of {@code version} committed by transaction {@code uuid}. */
  public static String rootPath(long version, String uuid) {
    return ROOTS_PREFIX + version + "-" + uuid + ".root";
  }

  /** The files of a version in its layout: single-file, or segmented (version file, root). */
  public static EncodedVersion encodeVersion(Manifest manifest, Transaction transaction) {
    if (!manifest.segmented()) {
      return new EncodedVersion(encodeManifest(manifest, transaction), Optional.empty());
    }
    if (!manifest.transactionUuid().equals(transaction.uuid())) {
      throw new IllegalArgumentException(
          "manifest records transaction " + manifest.transactionUuid() + " but " + transaction.uuid() + " was given");
    }
    byte[] root = envelope(ROOT_MAGIC, deterministic(encode(manifest)));
    String path = rootPath(manifest.version(), transaction.uuid());
    io.quiver.internal.proto.Manifest.Builder stub = io.quiver.internal.proto.Manifest.newBuilder()
        .setFormatVersion(FormatVersion.newBuilder().setMajor(Manifest.FORMAT_MAJOR).setMinor(minorOf(manifest)))
        .addAllReaderFeatures(new TreeSet<>(manifest.readerFeatures()))
        .addAllWriterFeatures(new TreeSet<>(manifest.writerFeatures()))
        .setVersion(manifest.version())
        .setTimestampMillis(manifest.timestamp().toEpochMilli())
        .setWriterVersion(manifest.writerVersion())
        .setTransactionUuid(manifest.transactionUuid())
        .setTransactionPath(manifest.transactionPath());
    ManifestFile file = ManifestFile.newBuilder()
        .setManifest(stub)
        .setTransaction(encode(transaction))
        .setRoot(io.quiver.internal.proto.RootRef.newBuilder().setPath(path).setSizeBytes(root.length))
        .build();
    return new EncodedVersion(envelope(MANIFEST_MAGIC, deterministic(file)), Optional.of(new RootFile(path, root)));
  }

  /**
   * A version file, decoded as far as it can be alone: a single-file version is whole; a segmented one is
   * its transaction and where its root is ({@link #decodeRoot} completes it).
   */
  public sealed interface VersionFile permits Whole, Rooted {
    Transaction transaction();
  }

  /** A single-file version. */
  public record Whole(ManifestAndTransaction decoded) implements VersionFile {
    @Override
    public Transaction transaction() {
      return decoded.transaction();
    }
  }

  /**
   * A segmented version's version file, its transaction decoded on first use (and then kept).
   *
   * @param version the version its stub records
   * @param timestamp the commit time its stub records
   * @param transactionUuid the uuid of the transaction its stub records
   * @param rootPath the root file's relative path
   * @param rootSize the root file's size in bytes
   */
  public record Rooted(long version, Instant timestamp, String transactionUuid, String rootPath, long rootSize,
      java.util.function.Supplier<Transaction> transactionDecoder) implements VersionFile {
    @Override
    public Transaction transaction() {
      return transactionDecoder.get();
    }
  }

  /** Decodes a version file of either layout; errors as for {@link #decodeManifest}. */
  public static VersionFile decodeVersionFile(byte[] bytes, String location) {
    byte[] payload = open(MANIFEST_MAGIC, bytes, location, "manifest");
    // Field by field, so that a segmented version's transaction is kept as bytes instead of parsed.
    io.quiver.internal.proto.Manifest.Builder stubBuilder = null;
    io.quiver.internal.proto.RootRef.Builder rootBuilder = null;
    com.google.protobuf.ByteString transactionBytes = null;
    try {
      com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(payload);
      in.enableAliasing(true);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        int field = com.google.protobuf.WireFormat.getTagFieldNumber(tag);
        boolean delimited = com.google.protobuf.WireFormat.getTagWireType(tag)
            == com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED;
        if (delimited && field == ManifestFile.MANIFEST_FIELD_NUMBER) {
          // A message field met twice merges, as protobuf's own parser does.
          stubBuilder = stubBuilder == null ? io.quiver.internal.proto.Manifest.newBuilder() : stubBuilder;
          stubBuilder.mergeFrom(in.readBytes());
        } else if (delimited && field == ManifestFile.ROOT_FIELD_NUMBER) {
          rootBuilder = rootBuilder == null ? io.quiver.internal.proto.RootRef.newBuilder() : rootBuilder;
          rootBuilder.mergeFrom(in.readBytes());
        } else if (delimited && field == ManifestFile.TRANSACTION_FIELD_NUMBER) {
          com.google.protobuf.ByteString b = in.readBytes();
          transactionBytes = transactionBytes == null ? b : transactionBytes.concat(b);
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
    } catch (java.io.IOException e) {
      throw new CorruptFileException(location, "manifest payload cannot be read: " + e.getMessage(), e);
    }
    if (rootBuilder == null) {
      ManifestFile file;
      try {
        file = ManifestFile.parseFrom(payload);
      } catch (InvalidProtocolBufferException e) {
        throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
      }
      return new Whole(decodeManifestFile(file, location));
    }
    if (stubBuilder == null || transactionBytes == null) {
      throw new CorruptFileException(location, "manifest file lacks its manifest or its transaction");
    }
    io.quiver.internal.proto.Manifest stub = stubBuilder.build();
    checkFormat(stub, location);
    if (!stub.getReaderFeaturesList().contains(Manifest.SEGMENTED_FEATURE)) {
      throw new CorruptFileException(location, "manifest file names a root file but not the reader feature '"
          + Manifest.SEGMENTED_FEATURE + "'");
    }
    String rootPath = rootBuilder.getPath();
    if (!rootPath.equals(rootPath(stub.getVersion(), stub.getTransactionUuid()))) {
      throw new CorruptFileException(location, "manifest file names root file '" + rootPath + "'; a version "
          + stub.getVersion() + " committed by transaction " + stub.getTransactionUuid() + " has its root at "
          + rootPath(stub.getVersion(), stub.getTransactionUuid()));
    }
    String uuid = stub.getTransactionUuid();
    com.google.protobuf.ByteString encoded = transactionBytes;
    return new Rooted(stub.getVersion(), Instant.ofEpochMilli(stub.getTimestampMillis()), uuid, rootPath,
        rootBuilder.getSizeBytes(), memoize(() -> decodeStubTransaction(encoded, uuid, location)));
  }

  /** The transaction of a segmented version file, which must be the one its stub names. */
  private static Transaction decodeStubTransaction(com.google.protobuf.ByteString bytes, String uuid,
      String location) {
    try {
      Transaction transaction = decode(io.quiver.internal.proto.Transaction.parseFrom(bytes));
      if (!uuid.equals(transaction.uuid())) {
        throw new IllegalArgumentException("manifest names transaction " + uuid + " but carries " + transaction.uuid());
      }
      return transaction;
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IllegalArgumentException | QuiverException e) {
      if (e instanceof UnsupportedFormatException u) {
        throw u;
      }
      throw new CorruptFileException(location, "invalid manifest content: " + e.getMessage(), e);
    }
  }

  /** {@code decoder}'s value, computed once (a failure is thrown again to every caller, not cached). */
  private static <T> java.util.function.Supplier<T> memoize(java.util.function.Supplier<T> decoder) {
    return new java.util.function.Supplier<>() {
      private volatile T value;

      @Override
      public T get() {
        T v = value;
        if (v == null) {
          synchronized (this) {
            v = value;
            if (v == null) {
              v = decoder.get();
              value = v;
            }
          }
        }
        return v;
      }
    };
  }

  /**
   * Decodes the root file of a segmented version into its manifest, whose fragments read their segments
   * through {@code loader}.
   *
   * @param version the version file's decoding, which the root must agree with
   * @param location the root file's store location, named in errors
   */
  public static ManifestAndTransaction decodeRoot(byte[] bytes, String location, Rooted version,
      io.quiver.manifest.FragmentList.Loader loader) {
    io.quiver.internal.proto.Manifest m = parseSized(ROOT_MAGIC, bytes, version.rootSize(), "its version file",
        location, "root", io.quiver.internal.proto.Manifest.parser());
    checkFormat(m, location);
    try {
      if (m.getVersion() != version.version() || !m.getTransactionUuid().equals(version.transactionUuid())) {
        throw new IllegalArgumentException("root is of version " + m.getVersion() + " by transaction "
            + m.getTransactionUuid() + " but its version file is version " + version.version() + " by "
            + version.transactionUuid());
      }
      if (!m.getReaderFeaturesList().contains(Manifest.SEGMENTED_FEATURE)) {
        throw new IllegalArgumentException("root lacks the reader feature '" + Manifest.SEGMENTED_FEATURE + "'");
      }
      if (m.getSegmentListsCount() > 0 && !m.getReaderFeaturesList().contains(Manifest.SEGMENT_LISTS_FEATURE)) {
        throw new IllegalArgumentException("root names segment lists but lacks the reader feature '"
            + Manifest.SEGMENT_LISTS_FEATURE + "'");
      }
      List<io.quiver.manifest.Segment> segments = new ArrayList<>(m.getSegmentsCount());
      for (io.quiver.internal.proto.SegmentRef ref : m.getSegmentsList()) {
        if (ref.getSegmentCount() != 0) {
          throw new IllegalArgumentException("segment " + ref.getPath() + " has a segment count ("
              + ref.getSegmentCount() + "); only a segment list has one");
        }
        segments.add(decode(ref));
      }
      List<io.quiver.manifest.SegmentList> lists = new ArrayList<>(m.getSegmentListsCount());
      for (io.quiver.internal.proto.SegmentRef ref : m.getSegmentListsList()) {
        lists.add(decodeList(ref));
      }
      lists.sort(java.util.Comparator.comparingLong(io.quiver.manifest.SegmentList::firstFragmentId));
      for (io.quiver.manifest.SegmentList list : lists) {
        try {
          segments.addAll(loader.loadList(list));
        } catch (QuiverException e) {
          throw new ListUnreadable(e); // names the list file, not the root
        }
      }
      segments.sort(java.util.Comparator.comparingLong(io.quiver.manifest.Segment::firstFragmentId));
      List<Fragment> inline = decodeFragments(m.getFragmentsList());
      io.quiver.manifest.FragmentList fragments =
          new io.quiver.manifest.FragmentList(segments, lists, inline, loader, Map.of(), Map.of());
      return new ManifestAndTransaction(decode(m, fragments), version.transactionDecoder());
    } catch (ListUnreadable e) {
      throw e.cause;
    } catch (IllegalArgumentException | QuiverException e) {
      if (e instanceof UnsupportedFormatException u) {
        throw u;
      }
      throw new CorruptFileException(location, "invalid root content: " + e.getMessage(), e);
    }
  }

  /** Carries a segment list's own read failure out of {@link #decodeRoot} unwrapped. */
  private static final class ListUnreadable extends RuntimeException {
    private final QuiverException cause;

    ListUnreadable(QuiverException cause) {
      super(cause.getMessage(), cause, false, false);
      this.cause = cause;
    }
  }

  /** A segment file's bytes. */
  public static byte[] encodeSegment(List<Fragment> fragments) {
    io.quiver.internal.proto.ManifestSegment.Builder b = io.quiver.internal.proto.ManifestSegment.newBuilder();
    for (Fragment f : fragments) {
      b.addFragments(encode(f));
    }
    return envelope(SEGMENT_MAGIC, deterministic(b.build()));
  }

  /**
   * Decodes a segment file and checks it against what the root says of it (size, ids, count, rows): a
   * segment that does not match is corrupt, never a silently different table.
   *
   * @param location the segment file's store location, named in errors
   */
  public static List<Fragment> decodeSegment(byte[] bytes, String location, io.quiver.manifest.Segment ref) {
    io.quiver.internal.proto.ManifestSegment m = parseSized(SEGMENT_MAGIC, bytes, ref.sizeBytes(), "the root",
        location, "segment", io.quiver.internal.proto.ManifestSegment.parser());
    List<Fragment> fragments;
    try {
      fragments = decodeFragments(m.getFragmentsList());
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(location, "invalid segment content: " + e.getMessage(), e);
    }
    long previous = -1;
    long physical = 0;
    long live = 0;
    for (Fragment f : fragments) {
      if (f.id() <= previous) {
        throw new CorruptFileException(location, "segment lists fragment " + f.id() + " after " + previous
            + "; fragments must be in ascending, distinct id order");
      }
      previous = f.id();
      physical += f.physicalRows();
      live += f.liveRows();
    }
    if (IntegrityChecks.on() && (fragments.size() != ref.fragmentCount() || fragments.get(0).id() != ref.firstFragmentId()
        || previous != ref.lastFragmentId() || physical != ref.physicalRows() || live != ref.liveRows())) {
      throw new CorruptFileException(location, "segment holds " + fragments.size() + " fragments "
          + (fragments.isEmpty() ? "" : fragments.get(0).id() + ".." + previous) + " with " + live + " live of "
          + physical + " rows, but the root says " + ref.fragmentCount() + " fragments " + ref.firstFragmentId()
          + ".." + ref.lastFragmentId() + " with " + ref.liveRows() + " live of " + ref.physicalRows() + " rows");
    }
    return fragments;
  }

  /** A segment list file's bytes: {@code segments} in ascending id order. */
  public static byte[] encodeSegmentList(List<io.quiver.manifest.Segment> segments) {
    io.quiver.internal.proto.SegmentList.Builder b = io.quiver.internal.proto.SegmentList.newBuilder();
    for (io.quiver.manifest.Segment s : segments) {
      b.addSegments(encode(s));
    }
    return envelope(LIST_MAGIC, deterministic(b.build()));
  }

  /**
   * Decodes a segment list file and checks it against what the root says of it (size, ids, counts, rows): a
   * list that does not match is corrupt, never a silently different table.
   *
   * @param location the list file's store location, named in errors
   */
  public static List<io.quiver.manifest.Segment> decodeSegmentList(byte[] bytes, String location,
      io.quiver.manifest.SegmentList ref) {
    io.quiver.internal.proto.SegmentList m = parseSized(LIST_MAGIC, bytes, ref.sizeBytes(), "the root", location,
        "segment list", io.quiver.internal.proto.SegmentList.parser());
    List<io.quiver.manifest.Segment> segments = new ArrayList<>(m.getSegmentsCount());
    try {
      for (io.quiver.internal.proto.SegmentRef r : m.getSegmentsList()) {
        if (r.getSegmentCount() != 0) {
          throw new IllegalArgumentException("entry " + r.getPath() + " has a segment count; a list names segments");
        }
        segments.add(decode(r));
      }
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(location, "invalid segment list content: " + e.getMessage(), e);
    }
    long previous = -1;
    long fragments = 0;
    long physical = 0;
    long live = 0;
    for (io.quiver.manifest.Segment s : segments) {
      if (s.firstFragmentId() <= previous) {
        throw new CorruptFileException(location, "segment list names segment " + s.path() + " starting at fragment "
            + s.firstFragmentId() + " after fragment " + previous + "; segments must be in ascending, disjoint order");
      }
      previous = s.lastFragmentId();
      fragments += s.fragmentCount();
      physical += s.physicalRows();
      live += s.liveRows();
    }
    if (IntegrityChecks.on() && (segments.size() != ref.segmentCount() || fragments != ref.fragmentCount()
        || segments.get(0).firstFragmentId() != ref.firstFragmentId() || previous != ref.lastFragmentId()
        || physical != ref.physicalRows() || live != ref.liveRows())) {
      throw new CorruptFileException(location, "segment list names " + segments.size() + " segments of " + fragments
          + " fragments " + (segments.isEmpty() ? "" : segments.get(0).firstFragmentId() + ".." + previous) + " with "
          + live + " live of " + physical + " rows, but the root says " + ref.segmentCount() + " segments of "
          + ref.fragmentCount() + " fragments " + ref.firstFragmentId() + ".." + ref.lastFragmentId() + " with "
          + ref.liveRows() + " live of " + ref.physicalRows() + " rows");
    }
    return segments;
  }

  /** The payload of a file whose size another file records, parsed: a size, checksum or parse failure is corrupt. */
  private static <T> T parseSized(byte[] magic, byte[] bytes, long expectedSize, String recordedBy, String location,
      String what, com.google.protobuf.Parser<T> parser) {
    if (bytes.length != expectedSize && IntegrityChecks.on()) {
      throw new CorruptFileException(location, what + " file is " + bytes.length + " bytes but " + recordedBy
          + " says " + expectedSize + "; the file is truncated, replaced or damaged");
    }
    byte[] payload = open(magic, bytes, location, what);
    try {
      return parser.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, what + " payload is not valid protobuf: " + e.getMessage(), e);
    }
  }

  private static io.quiver.internal.proto.SegmentRef encode(io.quiver.manifest.Segment s) {
    io.quiver.internal.proto.SegmentRef.Builder b = io.quiver.internal.proto.SegmentRef.newBuilder()
        .setPath(s.path())
        .setSizeBytes(s.sizeBytes())
        .setFirstFragmentId(s.firstFragmentId())
        .setLastFragmentId(s.lastFragmentId())
        .setFragmentCount(s.fragmentCount())
        .setPhysicalRows(s.physicalRows())
        .setLiveRows(s.liveRows())
        .setCompressed(s.compressed());
    for (io.quiver.manifest.FieldBounds fb : s.bounds().values()) {
      b.addBounds(encodeBounds(fb));
    }
    return b.build();
  }

  private static io.quiver.internal.proto.SegmentRef encode(io.quiver.manifest.SegmentList l) {
    io.quiver.internal.proto.SegmentRef.Builder b = io.quiver.internal.proto.SegmentRef.newBuilder()
        .setPath(l.path())
        .setSizeBytes(l.sizeBytes())
        .setFirstFragmentId(l.firstFragmentId())
        .setLastFragmentId(l.lastFragmentId())
        .setFragmentCount(l.fragmentCount())
        .setPhysicalRows(l.physicalRows())
        .setLiveRows(l.liveRows())
        .setCompressed(l.compressed())
        .setSegmentCount(l.segmentCount());
    for (io.quiver.manifest.FieldBounds fb : l.bounds().values()) {
      b.addBounds(encodeBounds(fb));
    }
    return b.build();
  }

  private static io.quiver.internal.proto.SegmentBounds encodeBounds(io.quiver.manifest.FieldBounds fb) {
    io.quiver.internal.proto.SegmentBounds.Builder bb = io.quiver.internal.proto.SegmentBounds.newBuilder()
        .setFieldId(fb.fieldId())
        .setMayHaveNulls(fb.mayHaveNulls())
        .setMayHaveValues(fb.mayHaveValues())
        .setMayHaveNan(fb.mayHaveNan());
    fb.lower().ifPresent(v -> bb.setLower(StatsCodec.encode(v)));
    fb.upper().ifPresent(v -> bb.setUpper(StatsCodec.encode(v)));
    return bb.build();
  }

  private static io.quiver.manifest.SegmentList decodeList(io.quiver.internal.proto.SegmentRef r) {
    if (r.getSegmentCount() < 1) {
      throw new IllegalArgumentException("segment list " + r.getPath() + " has no segment count; a list names at"
          + " least one segment");
    }
    return new io.quiver.manifest.SegmentList(r.getPath(), r.getSizeBytes(), r.getFirstFragmentId(),
        r.getLastFragmentId(), r.getSegmentCount(), r.getFragmentCount(), r.getPhysicalRows(), r.getLiveRows(),
        r.getCompressed(), decodeBounds(r));
  }

  private static Map<Integer, io.quiver.manifest.FieldBounds> decodeBounds(io.quiver.internal.proto.SegmentRef r) {
    Map<Integer, io.quiver.manifest.FieldBounds> bounds = new java.util.TreeMap<>();
    for (io.quiver.internal.proto.SegmentBounds b : r.getBoundsList()) {
      if (bounds.containsKey(b.getFieldId())) {
        throw new IllegalArgumentException("segment " + r.getPath() + " lists bounds of field " + b.getFieldId()
            + " twice");
      }
      bounds.put(b.getFieldId(), new io.quiver.manifest.FieldBounds(b.getFieldId(), b.getMayHaveNulls(),
          b.getMayHaveValues(), OptionalLong.empty(), OptionalLong.empty(), b.getMayHaveNan(),
          b.hasLower() ? StatsCodec.decode(b.getLower()) : Optional.empty(),
          b.hasUpper() ? StatsCodec.decode(b.getUpper()) : Optional.empty(), false));
    }
    return bounds;
  }

  private static io.quiver.manifest.Segment decode(io.quiver.internal.proto.SegmentRef r) {
    Map<Integer, io.quiver.manifest.FieldBounds> bounds = decodeBounds(r);
    return new io.quiver.manifest.Segment(r.getPath(), r.getSizeBytes(), r.getFirstFragmentId(),
        r.getLastFragmentId(), r.getFragmentCount(), r.getPhysicalRows(), r.getLiveRows(), r.getCompressed(), bounds);
  }

  /**
   * A version file in the single-file layout (format 1.1), whatever {@code manifest}'s layout: a segmented
   * manifest's fragments are written inline and its segmented feature dropped. Commits use {@link #encodeVersion}.
   */
  public static byte[] encodeManifest(Manifest manifest, Transaction transaction) {
    if (manifest.segmented() || manifest.readerFeatures().contains(Manifest.SEGMENTED_FEATURE)
        || manifest.writerFeatures().contains(Manifest.SEGMENTED_FEATURE)) {
      java.util.Set<String> reader = new TreeSet<>(manifest.readerFeatures());
      java.util.Set<String> writer = new TreeSet<>(manifest.writerFeatures());
      reader.remove(Manifest.SEGMENTED_FEATURE);
      writer.remove(Manifest.SEGMENTED_FEATURE);
      reader.remove(Manifest.SEGMENT_LISTS_FEATURE);
      writer.remove(Manifest.SEGMENT_LISTS_FEATURE);
      List<Fragment> all = manifest.fragments() instanceof io.quiver.manifest.FragmentList list
          ? list.materialize() : manifest.fragments();
      manifest = manifest.withFragments(all).withReaderFeatures(reader).withWriterFeatures(writer);
    }
    if (!manifest.transactionUuid().equals(transaction.uuid())) {
      throw new IllegalArgumentException(
          "manifest records transaction " + manifest.transactionUuid() + " but " + transaction.uuid() + " was given");
    }
    ManifestFile file =
        ManifestFile.newBuilder()
            .setManifest(encode(manifest))
            .setTransaction(encode(transaction))
            .build();
    return envelope(MANIFEST_MAGIC, deterministic(file));
  }

  /**
   * Decodes a manifest file.
   *
   * @param location the file's store location, named in errors
   * @throws CorruptFileException if the bytes are not a valid manifest file
   * @throws UnsupportedFormatException if it needs a newer format or an unknown reader feature
   */
  public static ManifestAndTransaction decodeManifest(byte[] bytes, String location) {
    byte[] payload = open(MANIFEST_MAGIC, bytes, location, "manifest");
    ManifestFile file;
    try {
      file = ManifestFile.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
    }
    if (file.hasRoot()) {
      throw new IllegalStateException(location + " is a segmented version; decode it with decodeVersionFile");
    }
    return decodeManifestFile(file, location);
  }

  private static ManifestAndTransaction decodeManifestFile(ManifestFile file, String location) {
    if (!file.hasManifest() || !file.hasTransaction()) {
      throw new CorruptFileException(location, "manifest file lacks its manifest or its transaction");
    }
    checkFormat(file.getManifest(), location);
    if (file.getManifest().getReaderFeaturesList().contains(Manifest.SEGMENTED_FEATURE)) {
      throw new CorruptFileException(location, "manifest requires reader feature '" + Manifest.SEGMENTED_FEATURE
          + "' but names no root file");
    }
    try {
      Manifest manifest = decode(file.getManifest());
      Transaction transaction = decode(file.getTransaction());
      if (!manifest.transactionUuid().equals(transaction.uuid())) {
        throw new IllegalArgumentException(
            "manifest names transaction " + manifest.transactionUuid() + " but carries " + transaction.uuid());
      }
      return new ManifestAndTransaction(manifest, transaction);
    } catch (IllegalArgumentException | QuiverException e) {
      if (e instanceof UnsupportedFormatException u) {
        throw u;
      }
      throw new CorruptFileException(location, "invalid manifest content: " + e.getMessage(), e);
    }
  }

  /**
   * Decodes only the transaction of a manifest file, skipping the manifest's bytes without decoding them:
   * what a committer needs of each version it catches up on (the manifest of every one but the newest
   * is never used, and decoding it costs as much as the table is large). The envelope's checksum is
   * still verified. Errors as for {@link #decodeManifest}.
   */
  public static Transaction decodeManifestTransaction(byte[] bytes, String location) {
    byte[] payload = open(MANIFEST_MAGIC, bytes, location, "manifest");
    io.quiver.internal.proto.Transaction proto = null;
    try {
      com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(payload);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (com.google.protobuf.WireFormat.getTagFieldNumber(tag) == ManifestFile.TRANSACTION_FIELD_NUMBER
            && com.google.protobuf.WireFormat.getTagWireType(tag) == com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          proto = in.readMessage(io.quiver.internal.proto.Transaction.parser(),
              com.google.protobuf.ExtensionRegistryLite.getEmptyRegistry());
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
    } catch (java.io.IOException e) {
      throw new CorruptFileException(location, "manifest payload cannot be read: " + e.getMessage(), e);
    }
    if (proto == null) {
      throw new CorruptFileException(location, "manifest file lacks its transaction");
    }
    try {
      return decode(proto);
    } catch (IllegalArgumentException | QuiverException e) {
      if (e instanceof UnsupportedFormatException u) {
        throw u;
      }
      throw new CorruptFileException(location, "invalid transaction in manifest: " + e.getMessage(), e);
    }
  }

  /**
   * The bytes of the transaction a version file carries (its {@code transaction} field as written, not
   * re-encoded), after checking the envelope: what a transaction batch copies. Errors as for {@link
   * #decodeManifest}.
   */
  public static ByteString transactionBytes(byte[] versionFile, String location) {
    byte[] payload = open(MANIFEST_MAGIC, versionFile, location, "manifest");
    ByteString found = null;
    try {
      com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(payload);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (com.google.protobuf.WireFormat.getTagFieldNumber(tag) == ManifestFile.TRANSACTION_FIELD_NUMBER
            && com.google.protobuf.WireFormat.getTagWireType(tag) == com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          ByteString b = in.readBytes();
          found = found == null ? b : found.concat(b); // a message field met twice merges
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException e) {
      throw new CorruptFileException(location, "manifest payload is not valid protobuf: " + e.getMessage(), e);
    }
    if (found == null) {
      throw new CorruptFileException(location, "manifest file lacks its transaction");
    }
    return found;
  }

  /** A transaction batch file: {@code transactions} (as {@link #transactionBytes} gives them) from {@code first}. */
  public static byte[] encodeTransactionBatch(long first, List<ByteString> transactions) {
    int size = com.google.protobuf.CodedOutputStream.computeUInt64Size(
        io.quiver.internal.proto.TransactionBatch.FIRST_VERSION_FIELD_NUMBER, first);
    for (ByteString t : transactions) {
      size += com.google.protobuf.CodedOutputStream.computeBytesSize(
          io.quiver.internal.proto.TransactionBatch.TRANSACTIONS_FIELD_NUMBER, t);
    }
    byte[] payload = new byte[size];
    com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(payload);
    try {
      out.writeUInt64(io.quiver.internal.proto.TransactionBatch.FIRST_VERSION_FIELD_NUMBER, first);
      for (ByteString t : transactions) {
        out.writeBytes(io.quiver.internal.proto.TransactionBatch.TRANSACTIONS_FIELD_NUMBER, t);
      }
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("protobuf serialization into a sized array failed", e);
    }
    return envelope(BATCH_MAGIC, payload);
  }

  /**
   * Decodes a transaction batch file that should hold the transactions of versions {@code first} .. {@code
   * first + count - 1}: one that holds other versions, another number of transactions or a transaction that
   * does not decode is corrupt ({@link CorruptFileException}); a newer format's is {@link
   * UnsupportedFormatException}.
   */
  public static List<Transaction> decodeTransactionBatch(byte[] bytes, String location, long first, int count) {
    byte[] payload = open(BATCH_MAGIC, bytes, location, "transaction batch");
    io.quiver.internal.proto.TransactionBatch batch;
    try {
      batch = io.quiver.internal.proto.TransactionBatch.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "transaction batch payload is not valid protobuf: " + e.getMessage(), e);
    }
    if (batch.getFirstVersion() != first || batch.getTransactionsCount() != count) {
      throw new CorruptFileException(location, "transaction batch holds " + batch.getTransactionsCount()
          + " transactions from version " + batch.getFirstVersion() + "; its name says " + count + " from version "
          + first);
    }
    List<Transaction> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        out.add(decode(batch.getTransactions(i)));
      } catch (IllegalArgumentException | QuiverException e) {
        if (e instanceof UnsupportedFormatException u) {
          throw u;
        }
        throw new CorruptFileException(location, "invalid transaction of version " + (first + i)
            + " in transaction batch: " + e.getMessage(), e);
      }
    }
    return out;
  }

  public static byte[] encodeTransaction(Transaction transaction) {
    return envelope(TRANSACTION_MAGIC, deterministic(encode(transaction)));
  }

  /** Decodes a transaction file; errors as for {@link #decodeManifest}. */
  public static Transaction decodeTransaction(byte[] bytes, String location) {
    byte[] payload = open(TRANSACTION_MAGIC, bytes, location, "transaction");
    try {
      return decode(io.quiver.internal.proto.Transaction.parseFrom(payload));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "transaction payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IllegalArgumentException | QuiverException e) {
      throw new CorruptFileException(location, "invalid transaction content: " + e.getMessage(), e);
    }
  }

  // ---- envelope ----

  /** Serializes with map entries sorted by key, so equal values always encode to equal bytes. */
  static byte[] deterministic(com.google.protobuf.Message message) {
    byte[] out = new byte[message.getSerializedSize()];
    com.google.protobuf.CodedOutputStream stream = com.google.protobuf.CodedOutputStream.newInstance(out);
    stream.useDeterministicSerialization();
    try {
      message.writeTo(stream);
      stream.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("protobuf serialization into a sized array failed", e);
    }
    return out;
  }

  static byte[] envelope(byte[] magic, byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    ByteBuffer out = ByteBuffer.allocate(HEADER + payload.length);
    out.put(magic).putInt((int) crc.getValue()).put(payload);
    return out.array();
  }

  static byte[] open(byte[] magic, byte[] bytes, String location, String what) {
    if (bytes.length < HEADER) {
      throw new CorruptFileException(
          location, what + " file is " + bytes.length + " bytes; expected at least an " + HEADER + "-byte header");
    }
    if (!Arrays.equals(bytes, 0, 4, magic, 0, 4)) {
      throw new CorruptFileException(
          location,
          "expected magic " + new String(magic, StandardCharsets.US_ASCII) + " for a " + what + " file, found "
              + printable(Arrays.copyOf(bytes, 4)));
    }
    int expected = ByteBuffer.wrap(bytes, 4, 4).getInt();
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER, bytes.length - HEADER);
    if ((int) crc.getValue() != expected && IntegrityChecks.on()) {
      throw new CorruptFileException(
          location,
          "checksum mismatch (expected CRC-32C " + Integer.toHexString(expected) + ", computed "
              + Long.toHexString(crc.getValue()) + "): the file is truncated or damaged");
    }
    return Arrays.copyOfRange(bytes, HEADER, bytes.length);
  }

  private static String printable(byte[] b) {
    StringBuilder s = new StringBuilder("0x");
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }

  private static void checkFormat(io.quiver.internal.proto.Manifest m, String location) {
    if (!m.hasFormatVersion()) {
      throw new CorruptFileException(location, "manifest has no format version");
    }
    int major = m.getFormatVersion().getMajor();
    if (major != Manifest.FORMAT_MAJOR) {
      throw new UnsupportedFormatException(
          location + " is written in Quiver format " + major + "." + m.getFormatVersion().getMinor()
              + " but this reader supports format " + Manifest.FORMAT_MAJOR
              + ".x; upgrade Quiver to read this table");
    }
    for (String feature : m.getReaderFeaturesList()) {
      if (!Manifest.KNOWN_FEATURES.contains(feature)) {
        throw new UnsupportedFormatException(
            location + " requires reader feature '" + feature + "', which this version of Quiver does not"
                + " implement; upgrade Quiver to read this table");
      }
    }
  }

  // ---- manifest ----

  private static io.quiver.internal.proto.Manifest encode(Manifest m) {
    io.quiver.internal.proto.Manifest.Builder b =
        io.quiver.internal.proto.Manifest.newBuilder()
            .setFormatVersion(
                FormatVersion.newBuilder().setMajor(Manifest.FORMAT_MAJOR).setMinor(minorOf(m)))
            .addAllReaderFeatures(new TreeSet<>(m.readerFeatures()))
            .addAllWriterFeatures(new TreeSet<>(m.writerFeatures()))
            .setVersion(m.version())
            .setSchema(SchemaCodec.encode(m.schema()))
            .setMaxFieldId(m.maxFieldId())
            .setTimestampMillis(m.timestamp().toEpochMilli())
            .setWriterVersion(m.writerVersion())
            .putAllConfig(m.config())
            .setTransactionUuid(m.transactionUuid())
            .setTransactionPath(m.transactionPath());
    m.maxFragmentId().ifPresent(b::setMaxFragmentId);
    if (m.fragments() instanceof io.quiver.manifest.FragmentList segmented) {
      for (io.quiver.manifest.Segment seg : segmented.directSegments()) {
        b.addSegments(encode(seg));
      }
      for (io.quiver.manifest.SegmentList list : segmented.lists()) {
        b.addSegmentLists(encode(list));
      }
      for (Fragment f : segmented.inline()) {
        b.addFragments(encode(f));
      }
    } else {
      for (Fragment f : m.fragments()) {
        b.addFragments(encode(f));
      }
    }
    m.ledger().ifPresent(l -> b.setLedger(encode(l)));
    m.indices().forEach(i -> b.addIndices(IndexCodec.encode(i)));
    m.nextRowId().ifPresent(b::setNextRowId);
    return b.build();
  }

  /** 1.4 with row ids; else 1.3 with indices; else 1.2 segmented, 1.1 single-file. */
  private static int minorOf(Manifest m) {
    if (m.hasRowIds()) {
      return Manifest.ROW_IDS_MINOR;
    }
    if (!m.indices().isEmpty()) {
      return Manifest.INDICES_MINOR;
    }
    return m.segmented() ? Manifest.FORMAT_MINOR : Manifest.SINGLE_FILE_MINOR;
  }

  private static io.quiver.internal.proto.CommitLedger encode(CommitLedger l) {
    io.quiver.internal.proto.CommitLedger.Builder b = io.quiver.internal.proto.CommitLedger.newBuilder()
        .setCompleteFromVersion(l.completeFromVersion())
        .setLastReplaceVersion(l.lastReplaceVersion());
    for (CommitLedger.KeyEntry e : l.keys().values()) {
      b.addKeys(io.quiver.internal.proto.LedgerKey.newBuilder()
          .setKey(e.key())
          .setVersion(e.version())
          .setOperation(e.operation())
          .setDigest(ByteString.copyFrom(HexFormat.of().parseHex(e.digest())))
          .setTimestampMillis(e.timestampMillis())
          .setTransactionUuid(e.transactionUuid()));
    }
    for (CommitLedger.SequenceWatermark w : l.sequences().values()) {
      b.addSequences(io.quiver.internal.proto.SequenceWatermark.newBuilder()
          .setApplicationId(w.applicationId())
          .setSequence(w.sequence())
          .setVersion(w.version())
          .setTimestampMillis(w.timestampMillis()));
    }
    return b.build();
  }

  private static CommitLedger decode(io.quiver.internal.proto.CommitLedger l, long manifestVersion) {
    Map<String, CommitLedger.KeyEntry> keys = new java.util.LinkedHashMap<>();
    for (io.quiver.internal.proto.LedgerKey k : l.getKeysList()) {
      if (k.getVersion() < 1 || k.getVersion() > manifestVersion || k.getDigest().size() != 32
          || keys.containsKey(k.getKey())) {
        throw new IllegalArgumentException("ledger key '" + k.getKey() + "' is invalid (version " + k.getVersion()
            + " in manifest " + manifestVersion + ", digest of " + k.getDigest().size() + " bytes, or listed twice)");
      }
      keys.put(k.getKey(), new CommitLedger.KeyEntry(k.getKey(), k.getVersion(), k.getOperation(),
          HexFormat.of().formatHex(k.getDigest().toByteArray()), k.getTimestampMillis(), k.getTransactionUuid()));
    }
    Map<String, CommitLedger.SequenceWatermark> sequences = new java.util.TreeMap<>();
    for (io.quiver.internal.proto.SequenceWatermark w : l.getSequencesList()) {
      if (w.getVersion() < 1 || w.getVersion() > manifestVersion || sequences.containsKey(w.getApplicationId())) {
        throw new IllegalArgumentException("ledger watermark of application '" + w.getApplicationId()
            + "' is invalid (version " + w.getVersion() + " in manifest " + manifestVersion + ", or listed twice)");
      }
      sequences.put(w.getApplicationId(), new CommitLedger.SequenceWatermark(
          w.getApplicationId(), w.getSequence(), w.getVersion(), w.getTimestampMillis()));
    }
    if (l.getCompleteFromVersion() < 1 || l.getCompleteFromVersion() > manifestVersion + 1
        || l.getLastReplaceVersion() > manifestVersion) {
      throw new IllegalArgumentException("ledger of manifest " + manifestVersion + " is complete from version "
          + l.getCompleteFromVersion() + " and replaced at " + l.getLastReplaceVersion() + ", beyond the manifest");
    }
    return new CommitLedger(keys, sequences, l.getCompleteFromVersion(), l.getLastReplaceVersion());
  }

  private static Manifest decode(io.quiver.internal.proto.Manifest m) {
    if (m.getSegmentsCount() > 0 || m.getSegmentListsCount() > 0) {
      throw new IllegalArgumentException("a manifest file lists segments; only a root file may");
    }
    List<Fragment> fragments = new ArrayList<>();
    for (io.quiver.internal.proto.Fragment f : m.getFragmentsList()) {
      fragments.add(decode(f));
    }
    return decode(m, fragments);
  }

  private static Manifest decode(io.quiver.internal.proto.Manifest m, List<Fragment> fragments) {
    return new Manifest(
        m.getVersion(),
        SchemaCodec.decode(m.getSchema()),
        fragments,
        m.hasMaxFragmentId() ? OptionalLong.of(m.getMaxFragmentId()) : OptionalLong.empty(),
        m.getMaxFieldId(),
        Instant.ofEpochMilli(m.getTimestampMillis()),
        m.getWriterVersion(),
        m.getConfigMap(),
        m.getTransactionUuid(),
        m.getTransactionPath(),
        new TreeSet<>(m.getReaderFeaturesList()),
        new TreeSet<>(m.getWriterFeaturesList()),
        m.hasLedger() ? Optional.of(decode(m.getLedger(), m.getVersion())) : Optional.empty(),
        IndexCodec.decode(m.getIndicesList(), m.getVersion()),
        m.hasNextRowId() ? OptionalLong.of(m.getNextRowId()) : OptionalLong.empty());
  }

  static io.quiver.internal.proto.Fragment encode(Fragment f) {
    io.quiver.internal.proto.Fragment.Builder b =
        io.quiver.internal.proto.Fragment.newBuilder().setId(f.id()).setPhysicalRows(f.physicalRows());
    for (DataFile file : f.files()) {
      b.addFiles(encode(file));
    }
    f.deletionFile().ifPresent(d -> b.setDeletionFile(encode(d)));
    for (Overlay o : f.overlays()) {
      b.addOverlays(encode(o));
    }
    f.lineage().ifPresent(l -> {
      if (l.file().isPresent()) {
        io.quiver.manifest.RowLineage.File file = l.file().get();
        b.setLineageFile(io.quiver.internal.proto.LineageFile.newBuilder().setPath(file.path())
            .setSizeBytes(file.sizeBytes()).setCrc32C(file.crc32c()).setFirstRowId(file.firstRowId())
            .setRowIdEnd(file.rowIdEnd()));
      } else {
        b.setLineage(encode(l));
      }
    });
    return b.build();
  }

  private static io.quiver.internal.proto.RowLineage encode(io.quiver.manifest.RowLineage l) {
    return io.quiver.internal.proto.RowLineage.newBuilder()
        .addAllIdRuns(boxed(l.idRuns()))
        .addAllCreatedRuns(boxed(l.createdRuns()))
        .addAllUpdatedRuns(boxed(l.updatedRuns()))
        .build();
  }

  /** Bytes of {@code l}'s runs inline in a fragment of a manifest (what a lineage file saves there). */
  public static int inlineLineageBytes(io.quiver.manifest.RowLineage l) {
    return encode(l).getSerializedSize();
  }

  /** A lineage file's bytes (docs/format.md section 14.1): the envelope {@code QVN1} around {@code l}'s runs. */
  public static byte[] encodeLineageFile(io.quiver.manifest.RowLineage l) {
    return envelope(LINEAGE_MAGIC, deterministic(encode(l)));
  }

  /** The CRC-32C a lineage file's envelope carries. */
  public static int lineageFileCrc(byte[] bytes) {
    return ByteBuffer.wrap(bytes, 4, 4).getInt();
  }

  /**
   * Decodes a lineage file and checks it against the fragment's reference (size, CRC-32C) and its {@code rows}
   * physical rows: a file that does not match is corrupt, never other ids.
   *
   * @param location the file's store location, named in errors
   */
  public static io.quiver.manifest.RowLineage decodeLineageFile(byte[] bytes, String location,
      io.quiver.manifest.RowLineage.File ref, long rows) {
    io.quiver.internal.proto.RowLineage m = parseSized(LINEAGE_MAGIC, bytes, ref.sizeBytes(), "the manifest",
        location, "lineage", io.quiver.internal.proto.RowLineage.parser());
    if (lineageFileCrc(bytes) != ref.crc32c()) {
      throw new CorruptFileException(location, "lineage file has CRC-32C " + Integer.toHexString(lineageFileCrc(bytes))
          + " but the manifest says " + Integer.toHexString(ref.crc32c()) + "; the file was replaced: restore it from"
          + " a backup, or check out another version");
    }
    io.quiver.manifest.RowLineage l;
    try {
      l = decode(m);
    } catch (IllegalArgumentException e) {
      throw new CorruptFileException(location, "invalid lineage file content: " + e.getMessage(), e);
    }
    if (l.rows() != rows) {
      throw new CorruptFileException(location, "lineage file covers " + l.rows() + " rows but its fragment has "
          + rows + " physical rows");
    }
    long[] span = l.idSpan();
    if (span != null && ref.rowIdEnd() != 0 && (span[0] < ref.firstRowId() || span[1] > ref.rowIdEnd())) {
      throw new CorruptFileException(location, "lineage file holds row ids " + span[0] + " to " + (span[1] - 1)
          + " but the manifest records the span [" + ref.firstRowId() + ", " + ref.rowIdEnd() + "); restore the file"
          + " from a backup, or check out another version");
    }
    return l;
  }

  private static io.quiver.manifest.RowLineage decode(io.quiver.internal.proto.RowLineage l) {
    return io.quiver.manifest.RowLineage.of(
        unboxed(l.getIdRunsList()), unboxed(l.getCreatedRunsList()), unboxed(l.getUpdatedRunsList()));
  }

  private static List<Long> boxed(long[] values) {
    return java.util.Arrays.stream(values).boxed().toList();
  }

  private static long[] unboxed(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }

  static Fragment decode(io.quiver.internal.proto.Fragment f) {
    List<DataFile> files = new ArrayList<>();
    for (io.quiver.internal.proto.DataFile file : f.getFilesList()) {
      files.add(decode(file));
    }
    Optional<DeletionFile> deletion =
        f.hasDeletionFile() ? Optional.of(decode(f.getDeletionFile())) : Optional.empty();
    List<Overlay> overlays = new ArrayList<>();
    for (io.quiver.internal.proto.Overlay o : f.getOverlaysList()) {
      overlays.add(decode(o));
    }
    Optional<io.quiver.manifest.RowLineage> lineage = Optional.empty();
    if (f.hasLineage() && f.hasLineageFile()) {
      throw new IllegalArgumentException("fragment " + f.getId() + " has both inline row lineage and a lineage file "
          + f.getLineageFile().getPath() + "; it may hold one");
    }
    if (f.hasLineage()) {
      lineage = Optional.of(decode(f.getLineage()));
    } else if (f.hasLineageFile()) {
      io.quiver.internal.proto.LineageFile l = f.getLineageFile();
      lineage = Optional.of(io.quiver.manifest.RowLineage.inFile(
          new io.quiver.manifest.RowLineage.File(l.getPath(), l.getSizeBytes(), l.getCrc32C(), l.getFirstRowId(),
              l.getRowIdEnd()), f.getPhysicalRows()));
    }
    return new Fragment(f.getId(), files, deletion, f.getPhysicalRows(), overlays, lineage);
  }

  private static io.quiver.internal.proto.DataFile encode(DataFile d) {
    io.quiver.internal.proto.DataFile.Builder b =
        io.quiver.internal.proto.DataFile.newBuilder()
            .setPath(d.path())
            .addAllFields(d.fieldIds())
            .addAllColumnIndices(d.columnIndices())
            .setFileMajor(d.formatMajor())
            .setFileMinor(d.formatMinor())
            .setSizeBytes(d.sizeBytes());
    d.baseId().ifPresent(b::setBaseId);
    d.stats().ifPresent(st -> b.setStats(StatsCodec.encode(st)));
    return b.build();
  }

  private static DataFile decode(io.quiver.internal.proto.DataFile d) {
    if (d.getFileMajor() != DataFile.CURRENT_MAJOR) {
      throw new UnsupportedFormatException(
          "data file " + d.getPath() + " is in data-file format " + d.getFileMajor() + "." + d.getFileMinor()
              + "; this reader supports " + DataFile.CURRENT_MAJOR + ".x; upgrade Quiver");
    }
    return new DataFile(
        d.getPath(),
        d.getFieldsList(),
        d.getColumnIndicesList(),
        d.getFileMajor(),
        d.getFileMinor(),
        d.getSizeBytes(),
        d.hasBaseId() ? OptionalInt.of(d.getBaseId()) : OptionalInt.empty(),
        d.hasStats() ? Optional.of(StatsCodec.decode(d.getStats())) : Optional.empty());
  }

  private static io.quiver.internal.proto.Overlay encode(Overlay o) {
    io.quiver.internal.proto.Overlay.Builder b =
        io.quiver.internal.proto.Overlay.newBuilder()
            .setDataFile(encode(o.dataFile()))
            .setCommittedVersion(o.committedVersion());
    if (o.coverage() instanceof Coverage.Shared shared) {
      b.setSharedOffsets(bitmap(shared.offsets()));
    } else if (o.coverage() instanceof Coverage.PerField perField) {
      FieldCoverage.Builder fc = FieldCoverage.newBuilder();
      for (ImmutableRoaringBitmap bm : perField.offsets()) {
        fc.addOffsets(bitmap(bm));
      }
      b.setPerField(fc);
    }
    return b.build();
  }

  private static Overlay decode(io.quiver.internal.proto.Overlay o) {
    Coverage coverage =
        switch (o.getCoverageCase()) {
          case SHARED_OFFSETS -> new Coverage.Shared(bitmap(o.getSharedOffsets()));
          case PER_FIELD -> {
            List<ImmutableRoaringBitmap> list = new ArrayList<>();
            for (ByteString bs : o.getPerField().getOffsetsList()) {
              list.add(bitmap(bs));
            }
            yield new Coverage.PerField(list);
          }
          case COVERAGE_NOT_SET ->
              throw new IllegalArgumentException("overlay " + o.getDataFile().getPath() + " has no coverage");
        };
    return new Overlay(decode(o.getDataFile()), coverage, o.getCommittedVersion());
  }

  /** Portable RoaringBitmap serialization. */
  static ByteString bitmap(ImmutableRoaringBitmap bitmap) {
    ByteBuffer buffer = ByteBuffer.allocate(bitmap.serializedSizeInBytes());
    bitmap.serialize(buffer);
    return ByteString.copyFrom(buffer.array());
  }

  static ImmutableRoaringBitmap bitmap(ByteString bytes) {
    MutableRoaringBitmap bitmap = new MutableRoaringBitmap();
    try {
      bitmap.deserialize(new java.io.DataInputStream(bytes.newInput()));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("coverage bitmap is not a portable RoaringBitmap: " + e.getMessage(), e);
    }
    return bitmap.toImmutableRoaringBitmap();
  }

  // ---- transaction ----

  private static io.quiver.internal.proto.Transaction encode(Transaction t) {
    io.quiver.internal.proto.Transaction.Builder b =
        io.quiver.internal.proto.Transaction.newBuilder()
            .setReadVersion(t.readVersion())
            .setUuid(t.uuid())
            .putAllProperties(t.properties());
    Operation op = t.operation();
    if (op instanceof Operation.Append a) {
      b.setAppend(io.quiver.internal.proto.Append.newBuilder().addAllFragments(encodeFragments(a.fragments())));
    } else if (op instanceof Operation.Overwrite o) {
      b.setOverwrite(
          io.quiver.internal.proto.Overwrite.newBuilder()
              .setSchema(SchemaCodec.encode(o.schema()))
              .addAllFragments(encodeFragments(o.fragments()))
              .putAllConfigUpserts(o.configUpserts()));
    } else if (op instanceof Operation.Delete d) {
      io.quiver.internal.proto.Delete.Builder db =
          io.quiver.internal.proto.Delete.newBuilder()
              .addAllReadFieldIds(d.readFieldIds())
              .setPredicate(d.predicate());
      d.deletions().forEach(fd -> db.addDeletions(encode(fd)));
      b.setDelete(db);
    } else if (op instanceof Operation.Update u) {
      io.quiver.internal.proto.Update.Builder ub =
          io.quiver.internal.proto.Update.newBuilder().addAllReadFieldIds(u.readFieldIds());
      u.overlays().forEach(fo -> ub.addOverlays(encode(fo)));
      b.setUpdate(ub);
    } else if (op instanceof Operation.MergeInsert mi) {
      io.quiver.internal.proto.MergeInsert.Builder mb =
          io.quiver.internal.proto.MergeInsert.newBuilder()
              .addAllKeyFieldIds(mi.keyFieldIds())
              .addAllNewFragments(encodeFragments(mi.newFragments()))
              .addAllReadFieldIds(mi.readFieldIds())
              .addAllReadFragmentIds(mi.readFragments())
              .setInsertedKeys(encode(mi.insertedKeys()))
              .setDeletesBySource(mi.deletesBySource())
              .setDescription(mi.description());
      mi.deletions().forEach(fd -> mb.addDeletions(encode(fd)));
      mi.overlays().forEach(fo -> mb.addOverlays(encode(fo)));
      b.setMergeInsert(mb);
    } else if (op instanceof Operation.RowDelta rd) {
      io.quiver.internal.proto.RowDelta.Builder rb =
          io.quiver.internal.proto.RowDelta.newBuilder()
              .addAllNewFragments(encodeFragments(rd.newFragments()))
              .addAllReadFieldIds(rd.readFieldIds())
              .addAllReadFragmentIds(rd.readFragments())
              .setSerializable(rd.serializable())
              .setDescription(rd.description());
      rd.deletions().forEach(fd -> rb.addDeletions(encode(fd)));
      b.setRowDelta(rb);
    } else if (op instanceof Operation.AddColumns a) {
      io.quiver.internal.proto.AddColumns.Builder ab =
          io.quiver.internal.proto.AddColumns.newBuilder()
              .setSchema(SchemaCodec.encode(a.schema()))
              .addAllReadFieldIds(a.readFieldIds());
      for (Operation.FragmentFile ff : a.files()) {
        ab.addFiles(
            io.quiver.internal.proto.FragmentFile.newBuilder().setFragmentId(ff.fragmentId()).setFile(encode(ff.file())));
      }
      b.setAddColumns(ab);
    } else if (op instanceof Operation.Project p) {
      b.setProject(
          io.quiver.internal.proto.Project.newBuilder()
              .setSchema(SchemaCodec.encode(p.schema()))
              .addAllDroppedFieldIds(p.droppedFieldIds())
              .addAllTightenedFieldIds(p.tightenedFieldIds()));
    } else if (op instanceof Operation.DataReplacement r) {
      io.quiver.internal.proto.DataReplacement.Builder rb =
          io.quiver.internal.proto.DataReplacement.newBuilder().addAllReadFieldIds(r.readFieldIds());
      for (Operation.Replacement rep : r.replacements()) {
        rb.addReplacements(
            io.quiver.internal.proto.Replacement.newBuilder()
                .setFragmentId(rep.fragmentId())
                .setFile(encode(rep.file())));
      }
      b.setDataReplacement(rb);
    } else if (op instanceof Operation.Rewrite r) {
      io.quiver.internal.proto.Rewrite.Builder rb = io.quiver.internal.proto.Rewrite.newBuilder();
      for (Operation.RewriteGroup g : r.groups()) {
        rb.addGroups(
            io.quiver.internal.proto.RewriteGroup.newBuilder()
                .addAllOldFragmentIds(g.oldFragmentIds())
                .addAllNewFragments(encodeFragments(g.newFragments())));
      }
      b.setRewrite(rb);
    } else if (op instanceof Operation.Restore r) {
      b.setRestore(
          io.quiver.internal.proto.Restore.newBuilder()
              .setVersion(r.version())
              .setSchema(SchemaCodec.encode(r.schema()))
              .addAllFragments(encodeFragments(r.fragments()))
              .putAllConfig(r.config()));
    } else if (op instanceof Operation.UpdateIndices u) {
      b.setUpdateIndices(io.quiver.internal.proto.UpdateIndices.newBuilder()
          .setAction(u.action().label()).setIndex(IndexCodec.encode(u.index())));
    } else if (op instanceof Operation.UpdateConfig c) {
      b.setUpdateConfig(
          io.quiver.internal.proto.UpdateConfig.newBuilder().putAllUpserts(c.upserts()).addAllDeletes(c.deletes()));
    } else if (op instanceof Operation.WriteColumns w) {
      io.quiver.internal.proto.WriteColumns.Builder wb = io.quiver.internal.proto.WriteColumns.newBuilder();
      w.writes().forEach(cw -> wb.addWrites(encode(cw)));
      b.setWriteColumns(wb);
    } else {
      throw new IllegalStateException("no encoding for operation " + op.name());
    }
    return b.build();
  }

  /** The unknown field numbers of a transaction, as " (transaction field 112)", or "". */
  private static String unknownFields(io.quiver.internal.proto.Transaction t) {
    java.util.Set<Integer> fields = new java.util.TreeSet<>(t.getUnknownFields().asMap().keySet());
    return fields.isEmpty() ? "" : " (transaction field " + fields.stream().map(String::valueOf)
        .collect(java.util.stream.Collectors.joining(", ")) + ")";
  }

  private static Transaction decode(io.quiver.internal.proto.Transaction t) {
    Operation op =
        switch (t.getOperationCase()) {
          case APPEND -> new Operation.Append(decodeFragments(t.getAppend().getFragmentsList()));
          case OVERWRITE ->
              new Operation.Overwrite(
                  SchemaCodec.decode(t.getOverwrite().getSchema()),
                  decodeFragments(t.getOverwrite().getFragmentsList()),
                  t.getOverwrite().getConfigUpsertsMap());
          case DELETE -> {
            List<Operation.FragmentDeletion> deletions = new ArrayList<>();
            t.getDelete().getDeletionsList().forEach(fd -> deletions.add(decode(fd)));
            yield new Operation.Delete(
                deletions, new TreeSet<>(t.getDelete().getReadFieldIdsList()), t.getDelete().getPredicate());
          }
          case UPDATE -> {
            List<Operation.FragmentOverlays> overlays = new ArrayList<>();
            t.getUpdate().getOverlaysList().forEach(fo -> overlays.add(decode(fo)));
            yield new Operation.Update(overlays, new TreeSet<>(t.getUpdate().getReadFieldIdsList()));
          }
          case MERGE_INSERT -> {
            io.quiver.internal.proto.MergeInsert mi = t.getMergeInsert();
            List<Operation.FragmentDeletion> deletions = new ArrayList<>();
            mi.getDeletionsList().forEach(fd -> deletions.add(decode(fd)));
            List<Operation.FragmentOverlays> overlays = new ArrayList<>();
            mi.getOverlaysList().forEach(fo -> overlays.add(decode(fo)));
            yield new Operation.MergeInsert(mi.getKeyFieldIdsList(), deletions, overlays,
                decodeFragments(mi.getNewFragmentsList()), new TreeSet<>(mi.getReadFieldIdsList()),
                new TreeSet<>(mi.getReadFragmentIdsList()), decode(mi.getInsertedKeys()), mi.getDeletesBySource(),
                mi.getDescription());
          }
          case ROW_DELTA -> {
            io.quiver.internal.proto.RowDelta rd = t.getRowDelta();
            List<Operation.FragmentDeletion> deletions = new ArrayList<>();
            rd.getDeletionsList().forEach(fd -> deletions.add(decode(fd)));
            // The conflict filter is the committing side's only: it is not stored.
            yield new Operation.RowDelta(deletions, decodeFragments(rd.getNewFragmentsList()),
                new TreeSet<>(rd.getReadFieldIdsList()), new TreeSet<>(rd.getReadFragmentIdsList()),
                rd.getSerializable(), Optional.empty(), rd.getDescription());
          }
          case ADD_COLUMNS -> {
            List<Operation.FragmentFile> files = new ArrayList<>();
            for (io.quiver.internal.proto.FragmentFile ff : t.getAddColumns().getFilesList()) {
              files.add(new Operation.FragmentFile(ff.getFragmentId(), decode(ff.getFile())));
            }
            yield new Operation.AddColumns(
                SchemaCodec.decode(t.getAddColumns().getSchema()),
                files,
                new TreeSet<>(t.getAddColumns().getReadFieldIdsList()));
          }
          case PROJECT ->
              new Operation.Project(
                  SchemaCodec.decode(t.getProject().getSchema()),
                  new TreeSet<>(t.getProject().getDroppedFieldIdsList()),
                  new TreeSet<>(t.getProject().getTightenedFieldIdsList()));
          case DATA_REPLACEMENT -> {
            List<Operation.Replacement> replacements = new ArrayList<>();
            for (io.quiver.internal.proto.Replacement r : t.getDataReplacement().getReplacementsList()) {
              replacements.add(new Operation.Replacement(r.getFragmentId(), decode(r.getFile())));
            }
            yield new Operation.DataReplacement(
                replacements, new TreeSet<>(t.getDataReplacement().getReadFieldIdsList()));
          }
          case REWRITE -> {
            List<Operation.RewriteGroup> groups = new ArrayList<>();
            for (io.quiver.internal.proto.RewriteGroup g : t.getRewrite().getGroupsList()) {
              groups.add(new Operation.RewriteGroup(g.getOldFragmentIdsList(), decodeFragments(g.getNewFragmentsList())));
            }
            yield new Operation.Rewrite(groups);
          }
          case RESTORE ->
              new Operation.Restore(
                  t.getRestore().getVersion(),
                  SchemaCodec.decode(t.getRestore().getSchema()),
                  decodeFragments(t.getRestore().getFragmentsList()),
                  t.getRestore().getConfigMap());
          case UPDATE_INDICES ->
              new Operation.UpdateIndices(
                  Operation.UpdateIndices.Action.of(t.getUpdateIndices().getAction()),
                  IndexCodec.decodeOne(t.getUpdateIndices().getIndex(), Long.MAX_VALUE));
          case UPDATE_CONFIG ->
              new Operation.UpdateConfig(
                  t.getUpdateConfig().getUpsertsMap(), new TreeSet<>(t.getUpdateConfig().getDeletesList()));
          case WRITE_COLUMNS -> {
            List<Operation.ColumnWrite> writes = new ArrayList<>();
            t.getWriteColumns().getWritesList().forEach(cw -> writes.add(decode(cw)));
            yield new Operation.WriteColumns(writes);
          }
          case OPERATION_NOT_SET ->
              throw new UnsupportedFormatException(
                  "transaction " + t.getUuid() + " (read version " + t.getReadVersion() + ") has an operation"
                      + " this version of Quiver does not know" + unknownFields(t) + "; it was written by a newer"
                      + " Quiver (docs/format.md lists the operations by transaction field number): upgrade Quiver");
        };
    return new Transaction(t.getUuid(), t.getReadVersion(), op, t.getPropertiesMap());
  }

  private static io.quiver.internal.proto.FragmentDeletion encode(Operation.FragmentDeletion fd) {
    io.quiver.internal.proto.FragmentDeletion.Builder fb =
        io.quiver.internal.proto.FragmentDeletion.newBuilder()
            .setFragmentId(fd.fragmentId())
            .setDeletionFile(encode(fd.deletionFile()))
            .setAddedOffsets(bitmap(fd.added()));
    fd.previous().ifPresent(p -> fb.setPrevious(encode(p)));
    return fb.build();
  }

  private static Operation.FragmentDeletion decode(io.quiver.internal.proto.FragmentDeletion fd) {
    return new Operation.FragmentDeletion(
        fd.getFragmentId(),
        fd.hasPrevious() ? Optional.of(decode(fd.getPrevious())) : Optional.empty(),
        decode(fd.getDeletionFile()),
        bitmap(fd.getAddedOffsets()));
  }

  private static io.quiver.internal.proto.FragmentOverlays encode(Operation.FragmentOverlays fo) {
    io.quiver.internal.proto.FragmentOverlays.Builder fb =
        io.quiver.internal.proto.FragmentOverlays.newBuilder().setFragmentId(fo.fragmentId());
    fo.overlays().forEach(o -> fb.addOverlays(encode(o)));
    return fb.build();
  }

  private static Operation.FragmentOverlays decode(io.quiver.internal.proto.FragmentOverlays fo) {
    List<Overlay> list = new ArrayList<>();
    fo.getOverlaysList().forEach(o -> list.add(decode(o)));
    return new Operation.FragmentOverlays(fo.getFragmentId(), list);
  }

  private static io.quiver.internal.proto.MergeKeys encode(io.quiver.internal.txn.MergeKeys k) {
    io.quiver.internal.proto.MergeKeys.Builder b = io.quiver.internal.proto.MergeKeys.newBuilder()
        .setCount(k.count())
        .setBloomHashes(k.bloomHashes())
        .setLower(ByteString.copyFrom(k.lower()))
        .setUpper(ByteString.copyFrom(k.upper()));
    k.exact().forEach(e -> b.addExact(ByteString.copyFrom(e)));
    for (long w : k.bloomWords()) {
      b.addBloomWords(w);
    }
    return b.build();
  }

  private static io.quiver.internal.txn.MergeKeys decode(io.quiver.internal.proto.MergeKeys k) {
    List<byte[]> exact = new ArrayList<>();
    k.getExactList().forEach(e -> exact.add(e.toByteArray()));
    long[] words = k.getBloomWordsList().stream().mapToLong(Long::longValue).toArray();
    try {
      return io.quiver.internal.txn.MergeKeys.decoded(k.getCount(), exact, words, k.getBloomHashes(),
          k.getLower().toByteArray(), k.getUpper().toByteArray());
    } catch (IllegalArgumentException e) {
      throw new CorruptFileException("(a merge-insert transaction)", "malformed inserted keys: " + e.getMessage());
    }
  }

  // ---- staged column writes ----

  static io.quiver.internal.proto.ColumnWrite encode(Operation.ColumnWrite w) {
    io.quiver.internal.proto.ColumnWrite.Builder b =
        io.quiver.internal.proto.ColumnWrite.newBuilder()
            .setFragmentId(w.fragmentId())
            .setPhysicalRows(w.physicalRows())
            .addAllPreparedFiles(w.preparedFiles())
            .setContract(SchemaCodec.encode(w.contract()))
            .addAllNewFieldIds(w.newFieldIds())
            .setFile(encode(w.file()));
    w.witness().forEach(fb -> b.addWitness(encode(fb)));
    // Field 8 is only emitted when there are inputs: a write without any encodes exactly as before.
    for (Operation.ColumnInput in : w.inputs()) {
      b.addInputs(io.quiver.internal.proto.ColumnInput.newBuilder().setPath(in.path()).setBacking(encode(in.backing())));
    }
    return b.build();
  }

  private static io.quiver.internal.proto.FieldBacking encode(FieldBacking fb) {
    io.quiver.internal.proto.FieldBacking.Builder pb =
        io.quiver.internal.proto.FieldBacking.newBuilder().setFieldId(fb.fieldId());
    fb.base().ifPresent(c -> pb.setBase(encode(c)));
    for (FieldBacking.OverlayBacking o : fb.overlays()) {
      pb.addOverlays(
          io.quiver.internal.proto.OverlayBacking.newBuilder()
              .setFile(encode(o.file()))
              .setCommittedVersion(o.committedVersion())
              .setCoverage(bitmap(o.coverage())));
    }
    return pb.build();
  }

  private static FieldBacking decode(io.quiver.internal.proto.FieldBacking pb) {
    List<FieldBacking.OverlayBacking> overlays = new ArrayList<>();
    for (io.quiver.internal.proto.OverlayBacking o : pb.getOverlaysList()) {
      overlays.add(new FieldBacking.OverlayBacking(decode(o.getFile()), o.getCommittedVersion(),
          bitmap(o.getCoverage())));
    }
    return new FieldBacking(pb.getFieldId(), pb.hasBase() ? Optional.of(decode(pb.getBase())) : Optional.empty(),
        overlays);
  }

  static Operation.ColumnWrite decode(io.quiver.internal.proto.ColumnWrite w) {
    List<FieldBacking> witness = new ArrayList<>();
    w.getWitnessList().forEach(pb -> witness.add(decode(pb)));
    List<Operation.ColumnInput> inputs = new ArrayList<>();
    for (io.quiver.internal.proto.ColumnInput in : w.getInputsList()) {
      if (!in.hasBacking()) {
        throw new IllegalArgumentException("column write for fragment " + w.getFragmentId() + " has an input ('"
            + in.getPath() + "') without its backing");
      }
      inputs.add(new Operation.ColumnInput(in.getPath(), decode(in.getBacking())));
    }
    if (!w.hasContract() || !w.hasFile()) {
      throw new IllegalArgumentException("column write for fragment " + w.getFragmentId() + " lacks its "
          + (w.hasContract() ? "file" : "contract"));
    }
    return new Operation.ColumnWrite(w.getFragmentId(), w.getPhysicalRows(), w.getPreparedFilesList(),
        SchemaCodec.decode(w.getContract()), new TreeSet<>(w.getNewFieldIdsList()), decode(w.getFile()), witness,
        inputs);
  }

  private static io.quiver.internal.proto.FileColumn encode(FieldBacking.FileColumn c) {
    io.quiver.internal.proto.FileColumn.Builder b =
        io.quiver.internal.proto.FileColumn.newBuilder()
            .setPath(c.path())
            .setFileMajor(c.formatMajor())
            .setFileMinor(c.formatMinor())
            .setColumnIndex(c.columnIndex())
            .setSizeBytes(c.sizeBytes());
    c.baseId().ifPresent(b::setBaseId);
    return b.build();
  }

  private static FieldBacking.FileColumn decode(io.quiver.internal.proto.FileColumn c) {
    return new FieldBacking.FileColumn(c.getPath(), c.hasBaseId() ? OptionalInt.of(c.getBaseId()) : OptionalInt.empty(),
        c.getFileMajor(), c.getFileMinor(), c.getColumnIndex(), c.getSizeBytes());
  }

  private static List<io.quiver.internal.proto.Fragment> encodeFragments(List<Fragment> fragments) {
    List<io.quiver.internal.proto.Fragment> out = new ArrayList<>();
    fragments.forEach(f -> out.add(encode(f)));
    return out;
  }

  private static List<Fragment> decodeFragments(List<io.quiver.internal.proto.Fragment> protos) {
    List<Fragment> out = new ArrayList<>();
    for (io.quiver.internal.proto.Fragment f : protos) {
      out.add(decode(f));
    }
    return out;
  }

  private static io.quiver.internal.proto.DeletionFile encode(DeletionFile d) {
    return io.quiver.internal.proto.DeletionFile.newBuilder()
        .setPath(d.path())
        .setDeletedRows(d.deletedRows())
        .setSizeBytes(d.sizeBytes())
        .build();
  }

  private static DeletionFile decode(io.quiver.internal.proto.DeletionFile d) {
    return new DeletionFile(d.getPath(), d.getDeletedRows(), d.getSizeBytes());
  }
}
