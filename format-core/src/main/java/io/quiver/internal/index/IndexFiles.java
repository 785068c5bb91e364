package io.quiver.internal.index;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.codec.IndexCodec;
import io.quiver.internal.proto.IndexFooter;
import io.quiver.internal.proto.IndexPageRef;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.ScalarIndex;
import java.util.Arrays;

/** Whole-file checks of index segments, for {@code validate()}. */
public final class IndexFiles {
  private IndexFiles() {}

  /**
   * Decodes every page and the footer of {@code segment} from {@code bytes} (the whole file) and checks them
   * against the manifest's entry and {@code index}.
   *
   * @throws CorruptFileException naming the file, for the first problem found
   */
  public static void verify(TableIo io, ScalarIndex index, IndexSegment segment, byte[] bytes) {
    String location = io.store().locationOf(segment.path());
    IndexFooter footer = IndexCodec.decodeFooter(Arrays.copyOfRange(bytes, (int) segment.footerOffset(),
        (int) segment.footerOffset() + segment.footerLength()), location);
    if (!footer.getKind().equals(index.kind().label()) || footer.getFieldId() != index.fieldId()
        || footer.getRows() != segment.rows()) {
      throw new CorruptFileException(location, "index footer says kind " + footer.getKind() + ", field "
          + footer.getFieldId() + ", " + footer.getRows() + " rows; the manifest says " + index.kind().label() + ", "
          + index.fieldId() + ", " + segment.rows());
    }
    for (IndexPageRef p : footer.getPagesList()) {
      if (p.getOffset() + p.getLength() > segment.footerOffset()) {
        throw new CorruptFileException(location, "index page at " + p.getOffset() + " runs into the footer");
      }
      SegmentFile.Page page = SegmentFile.decodePage(Arrays.copyOfRange(bytes, (int) p.getOffset(),
          (int) (p.getOffset() + p.getLength())), location, p.getOffset());
      if (page.keys().size() != p.getKeys() || page.keys().isEmpty()
          || !page.keys().get(0).equals(IndexCodec.decodeKey(p.getFirstKey()).orElse(null))
          || !page.keys().get(page.keys().size() - 1).equals(IndexCodec.decodeKey(p.getLastKey()).orElse(null))) {
        throw new CorruptFileException(location, "index page at " + p.getOffset() + " holds " + page.keys().size()
            + " keys" + (page.keys().isEmpty() ? "" : " from " + page.keys().get(0) + " to "
            + page.keys().get(page.keys().size() - 1)) + "; the footer says " + p.getKeys() + " keys from "
            + IndexCodec.decodeKey(p.getFirstKey()).orElse(null) + " to "
            + IndexCodec.decodeKey(p.getLastKey()).orElse(null));
      }
    }
  }
}
