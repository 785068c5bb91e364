package io.quiver.internal.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.proto.BtreePage;
import io.quiver.internal.proto.IndexFooter;
import io.quiver.internal.proto.IndexPage;
import io.quiver.internal.proto.IndexRef;
import io.quiver.internal.proto.IndexSegmentRef;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.manifest.StatValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Encodes scalar indices as manifests list them, and the pages and footer of index segment files (format 1.3). */
public final class IndexCodec {
  private static final byte[] PAGE_MAGIC = "QVXP".getBytes(StandardCharsets.US_ASCII);
  /**
   * Compact btree pages ({@code BtreePage}, docs/format.md §13.2). A magic of their own, not new fields of {@code
   * IndexPage}: a reader that knows only {@code QVXP} refuses such a page as corrupt instead of parsing it as a page
   * without keys (an empty answer, that is rows silently lost).
   */
  private static final byte[] BTREE_PAGE_MAGIC = "QVXC".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FOOTER_MAGIC = "QVXF".getBytes(StandardCharsets.US_ASCII);

  private IndexCodec() {}

  public static IndexRef encode(ScalarIndex index) {
    IndexRef.Builder b = IndexRef.newBuilder()
        .setUuid(index.uuid())
        .setName(index.name())
        .setKind(index.kind().label())
        .setFieldId(index.fieldId())
        .setCreatedVersion(index.createdVersion());
    for (IndexSegment s : index.segments()) {
      b.addSegments(encodeSegment(s));
    }
    return b.build();
  }

  /** One segment as a manifest lists it. */
  public static IndexSegmentRef encodeSegment(IndexSegment s) {
    IndexSegmentRef.Builder sb = IndexSegmentRef.newBuilder()
        .setPath(s.path())
        .setSizeBytes(s.sizeBytes())
        .setFooterOffset(s.footerOffset())
        .setFooterLength(s.footerLength())
        .setBuiltAtVersion(s.builtAtVersion())
        .setRows(s.rows());
    for (IndexedFragment f : s.fragments()) {
      sb.addFragments(io.quiver.internal.proto.IndexedFragment.newBuilder()
          .setFragmentId(f.fragmentId()).setPhysicalRows(f.physicalRows()).addAllSourceFiles(f.sourceFiles()));
    }
    return sb.build();
  }

  /** A segment of the index {@code uuid}; one not under its directory is an {@link IllegalArgumentException}. */
  public static IndexSegment decodeSegment(IndexSegmentRef s, String uuid, String name) {
    if (!s.getPath().startsWith("_indices/" + uuid + "/")) {
      throw new IllegalArgumentException(
          "index '" + name + "' segment " + s.getPath() + " is not under _indices/" + uuid + "/");
    }
    List<IndexedFragment> fragments = new ArrayList<>();
    for (io.quiver.internal.proto.IndexedFragment f : s.getFragmentsList()) {
      fragments.add(new IndexedFragment(f.getFragmentId(), f.getPhysicalRows(), f.getSourceFilesList()));
    }
    return new IndexSegment(s.getPath(), s.getSizeBytes(), s.getFooterOffset(), s.getFooterLength(),
        s.getBuiltAtVersion(), s.getRows(), fragments);
  }

  /** The indices of manifest {@code version}; malformed entries are an {@link IllegalArgumentException}. */
  static List<ScalarIndex> decode(List<IndexRef> refs, long version) {
    List<ScalarIndex> out = new ArrayList<>(refs.size());
    for (IndexRef r : refs) {
      if (!r.getKind().equals("btree") && !r.getKind().equals("bitmap")) {
        // A kind from a newer writer: it comes with a writer feature of its own, which stops this writer from
        // committing; a reader reads without it (an index only narrows which rows a filter reads).
        continue;
      }
      out.add(decodeOne(r, version));
    }
    return out;
  }

  static ScalarIndex decodeOne(IndexRef r, long version) {
    if (r.getCreatedVersion() > version) {
      throw new IllegalArgumentException(
          "index '" + r.getName() + "' was created at version " + r.getCreatedVersion() + ", after " + version);
    }
    List<IndexSegment> segments = new ArrayList<>();
    for (IndexSegmentRef s : r.getSegmentsList()) {
      segments.add(decodeSegment(s, r.getUuid(), r.getName()));
    }
    return new ScalarIndex(r.getUuid(), r.getName(), ScalarIndex.Kind.of(r.getKind()), r.getFieldId(),
        r.getCreatedVersion(), segments);
  }

  // ---------------------------------------------------------------- segment files

  public static byte[] encodePage(IndexPage page) {
    return MetadataCodec.envelope(PAGE_MAGIC, MetadataCodec.deterministic(page));
  }

  public static byte[] encodeBtreePage(BtreePage page) {
    return MetadataCodec.envelope(BTREE_PAGE_MAGIC, MetadataCodec.deterministic(page));
  }

  /** Whether {@code bytes} start with the magic of a compact btree page ({@code QVXC}) rather than another page's. */
  public static boolean isBtreePage(byte[] bytes) {
    return bytes.length >= 4 && Arrays.equals(bytes, 0, 4, BTREE_PAGE_MAGIC, 0, 4);
  }

  public static byte[] encodeFooter(IndexFooter footer) {
    return MetadataCodec.envelope(FOOTER_MAGIC, MetadataCodec.deterministic(footer));
  }

  /** @throws CorruptFileException naming {@code location} when the bytes are not an intact page */
  public static IndexPage decodePage(byte[] bytes, String location) {
    byte[] payload = MetadataCodec.open(PAGE_MAGIC, bytes, location, "index page");
    try {
      return IndexPage.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "index page does not parse: " + e.getMessage(), e);
    }
  }

  /** @throws CorruptFileException naming {@code location} when the bytes are not an intact compact btree page */
  public static BtreePage decodeBtreePage(byte[] bytes, String location) {
    byte[] payload = MetadataCodec.open(BTREE_PAGE_MAGIC, bytes, location, "compact btree page");
    try {
      return BtreePage.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "compact btree page does not parse: " + e.getMessage(), e);
    }
  }

  /** @throws CorruptFileException naming {@code location} when the bytes are not an intact footer */
  public static IndexFooter decodeFooter(byte[] bytes, String location) {
    byte[] payload = MetadataCodec.open(FOOTER_MAGIC, bytes, location, "index footer");
    try {
      return IndexFooter.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(location, "index footer does not parse: " + e.getMessage(), e);
    }
  }

  public static io.quiver.internal.proto.StatValue encodeKey(StatValue key) {
    return StatsCodec.encode(key);
  }

  public static Optional<StatValue> decodeKey(io.quiver.internal.proto.StatValue key) {
    return StatsCodec.decode(key);
  }
}
