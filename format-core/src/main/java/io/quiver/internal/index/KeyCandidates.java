package io.quiver.internal.index;

import io.quiver.internal.file.StatValues;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.ScalarIndex;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of a version that may hold one of a set of keys, as its scalar indices say: what a merge-insert (or
 * any key lookup) reads instead of whole fragments. For each key column with an index, the distinct key values
 * become {@code IN} filters (in chunks of {@link #CHUNK} values) handed to {@link IndexSelection}, which answers
 * only for fragments a segment covers in their current state (the coverage validity rule, docs/format.md §13);
 * the candidates of several indexed key columns are intersected. A fragment no index answers for is absent, and
 * the caller reads it whole. Candidates are a superset: the caller still matches every key it reads exactly.
 */
public final class KeyCandidates {
  /** Values per {@code IN} filter asked of the indices. */
  public static final int CHUNK = 4096;

  private final Map<Long, RoaringBitmap> candidates;
  private final boolean indexed;

  private KeyCandidates(Map<Long, RoaringBitmap> candidates, boolean indexed) {
    this.candidates = candidates;
    this.indexed = indexed;
  }

  /** No index answers (none covers a key column, or a key cannot be written as a filter literal). */
  public static final KeyCandidates NONE = new KeyCandidates(Map.of(), false);

  /**
   * The candidates for {@code keys} (each a tuple of non-null values, one per field of {@code keyFields}, in the
   * stored representation {@link io.quiver.internal.predicate.CellValues} gives) among {@code fragments}.
   */
  public static KeyCandidates of(TableIo io, Manifest manifest, List<Field> keyFields, List<List<StatValue>> keys,
      List<Fragment> fragments) {
    return of(io, manifest, keyFields, keys, fragments, false);
  }

  /**
   * As {@link #of(TableIo, Manifest, List, List, List)}; with {@code always}, every segment is asked, even where
   * reading its pages costs more than reading the key column (for tests and measurements).
   */
  public static KeyCandidates of(TableIo io, Manifest manifest, List<Field> keyFields, List<List<StatValue>> keys,
      List<Fragment> fragments, boolean always) {
    if (manifest.indices().isEmpty() || keys.isEmpty() || fragments.isEmpty()) {
      return NONE;
    }
    Map<Long, RoaringBitmap> out = null;
    boolean indexed = false;
    for (int k = 0; k < keyFields.size(); k++) {
      Field field = keyFields.get(k);
      if (manifest.indices().stream().map(ScalarIndex::fieldId).noneMatch(id -> id == field.id())) {
        continue;
      }
      indexed = true;
      Optional<List<Object>> values = literals(field, keys, k);
      if (values.isEmpty()) {
        continue; // some key has no literal of this column's type: this column cannot narrow
      }
      List<Fragment> worth = always ? fragments : worthReading(io, manifest, field.id(), distinct(keys, k), fragments);
      if (worth.isEmpty()) {
        continue;
      }
      Optional<Map<Long, RoaringBitmap>> column = column(io, manifest, manifest.schema().pathOf(field.id()),
          values.get(), worth);
      if (column.isEmpty()) {
        continue;
      }
      if (out == null) {
        out = column.get();
      } else {
        Map<Long, RoaringBitmap> both = out;
        column.get().forEach((fragment, hits) -> both.merge(fragment, hits, (a, b) -> RoaringBitmap.and(a, b)));
      }
    }
    return out == null ? new KeyCandidates(Map.of(), indexed) : new KeyCandidates(out, indexed);
  }

  /**
   * The fragments whose covering segment is cheaper to ask than their key column is to read: for each segment
   * covering some of {@code fragments} in their current state, the bytes of its footer and of the pages the keys
   * fall into, plus one chunk of the key column per key those pages may hold (what is then read at the
   * candidates), against the key column's bytes in those fragments' files (the data files' column statistics;
   * without them the index is asked). A lookup of many keys spread over a table
   * touches most pages, and a page (up to 4,096 row addresses with their keys) weighs more than the compressed
   * column of the same rows: then the column is read, as without an index.
   */
  static List<Fragment> worthReading(TableIo io, Manifest manifest, int fieldId, List<StatValue> sortedKeys,
      List<Fragment> fragments) {
    Map<Long, Fragment> byId = new HashMap<>();
    fragments.forEach(f -> byId.put(f.id(), f));
    java.util.Set<Integer> column = IndexedColumns.of(manifest.schema(), fieldId);
    java.util.Set<Long> worth = new java.util.HashSet<>();
    for (ScalarIndex index : manifest.indices()) {
      if (index.fieldId() != fieldId) {
        continue;
      }
      for (io.quiver.manifest.IndexSegment segment : index.segments()) {
        List<Fragment> covered = new ArrayList<>();
        for (io.quiver.manifest.IndexedFragment c : segment.fragments()) {
          Fragment f = byId.get(c.fragmentId());
          if (f != null && c.matches(f, column)) {
            covered.add(f);
          }
        }
        if (covered.isEmpty()) {
          continue;
        }
        long columnBytes = 0;
        long rows = 0;
        for (Fragment f : covered) {
          columnBytes = saturatedAdd(columnBytes, columnBytes(f, fieldId));
          rows += f.physicalRows();
        }
        if (columnBytes == Long.MAX_VALUE) {
          covered.forEach(f -> worth.add(f.id())); // no statistics to weigh: the index is asked
          continue;
        }
        SegmentFile.Footer footer = SegmentFile.footer(io, segment);
        long[] touched = touchedPages(footer, sortedKeys);
        // Each key the pages may hold then costs the read of one chunk of the key column (its record batch, up
        // to the scan's batch size, never more than a fragment's rows on average).
        long chunkRows = Math.max(1, Math.min(ScanSpec.DEFAULT_BATCH_SIZE, rows / covered.size()));
        long perKey = rows == 0 ? 0 : (long) Math.ceil((double) columnBytes * chunkRows / rows);
        long indexBytes = saturatedAdd(segment.footerLength() + touched[0],
            Math.min(columnBytes, saturatedMultiply(touched[1], perKey)));
        if (indexBytes < columnBytes) {
          covered.forEach(f -> worth.add(f.id()));
        }
      }
    }
    return fragments.stream().filter(f -> worth.contains(f.id())).toList();
  }

  /**
   * The bytes of the pages of {@code footer} whose key range holds one of {@code sortedKeys}, and how many of the
   * keys fall in those ranges: {@code {bytes, keys}}.
   */
  static long[] touchedPages(SegmentFile.Footer footer, List<StatValue> sortedKeys) {
    long bytes = 0;
    long keys = 0;
    int page = 0;
    int pages = footer.pages().size();
    int last = -1;
    for (StatValue key : sortedKeys) {
      while (page < pages && StatValues.compare(footer.lastKeys().get(page), key) < 0) {
        page++;
      }
      if (page == pages) {
        break;
      }
      if (StatValues.compare(footer.firstKeys().get(page), key) <= 0) {
        keys++;
        if (page != last) {
          bytes += footer.pages().get(page).getLength();
          last = page;
        }
      }
    }
    return new long[] {bytes, keys};
  }

  private static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }

  /** The bytes of field {@code fieldId} in the fragment's files; Long.MAX_VALUE when a file has no statistics. */
  private static long columnBytes(Fragment f, int fieldId) {
    long bytes = 0;
    List<io.quiver.manifest.DataFile> files = new ArrayList<>(f.files());
    f.overlays().forEach(o -> files.add(o.dataFile()));
    for (io.quiver.manifest.DataFile file : files) {
      if (!file.fieldIds().contains(fieldId)) {
        continue;
      }
      Optional<io.quiver.manifest.ColumnStats> stats = file.stats().flatMap(
          s -> s.columns().stream().filter(c -> c.fieldId() == fieldId).findFirst());
      if (stats.isEmpty()) {
        return Long.MAX_VALUE;
      }
      bytes = saturatedAdd(bytes, stats.get().columnBytes());
    }
    return bytes;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  /** The distinct values of key column {@code k}, sorted. */
  private static List<StatValue> distinct(List<List<StatValue>> keys, int k) {
    TreeSet<StatValue> out = new TreeSet<>(StatValues::compare);
    for (List<StatValue> key : keys) {
      out.add(key.get(k));
    }
    return new ArrayList<>(out);
  }

  /** What the indices of one column say for {@code values}: fragments answered for every chunk. */
  private static Optional<Map<Long, RoaringBitmap>> column(TableIo io, Manifest manifest, String path,
      List<Object> values, List<Fragment> fragments) {
    Map<Long, RoaringBitmap> union = null;
    for (int start = 0; start < values.size(); start += CHUNK) {
      List<Object> chunk = values.subList(start, Math.min(values.size(), start + CHUNK));
      IndexSelection selection = IndexSelection.of(io, manifest, Optional.of(Predicate.in(path, chunk)), fragments);
      Map<Long, RoaringBitmap> next = new HashMap<>();
      for (Fragment f : fragments) {
        Optional<RoaringBitmap> hits = selection.candidates(f.id());
        if (hits.isPresent() && (union == null || union.containsKey(f.id()))) {
          RoaringBitmap merged = union == null ? hits.get().clone() : RoaringBitmap.or(union.get(f.id()), hits.get());
          next.put(f.id(), merged);
        }
      }
      union = next; // a fragment not answered for one chunk is read whole
      if (union.isEmpty()) {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(union);
  }

  /**
   * The distinct values of key column {@code k}, sorted, as filter literals; empty when one has none (a time or
   * duration, a millisecond date off a day boundary, a string that is not UTF-8).
   */
  static Optional<List<Object>> literals(Field field, List<List<StatValue>> keys, int k) {
    TreeSet<StatValue> distinct = new TreeSet<>(StatValues::compare);
    for (List<StatValue> key : keys) {
      distinct.add(key.get(k));
    }
    List<Object> out = new ArrayList<>(distinct.size());
    for (StatValue v : distinct) {
      Optional<Object> literal = literal(field.type(), v);
      if (literal.isEmpty()) {
        return Optional.empty();
      }
      out.add(literal.get());
    }
    return Optional.of(out);
  }

  /** {@code value} (stored representation of a cell of {@code type}) as the literal a filter compares it with. */
  static Optional<Object> literal(ArrowType type, StatValue value) {
    if (type instanceof ArrowType.Int) {
      if (value instanceof StatValue.Int i) {
        return Optional.of(i.value());
      }
      if (value instanceof StatValue.UInt64 u) {
        return Optional.of(new BigInteger(Long.toUnsignedString(u.bits())));
      }
      return Optional.empty();
    }
    if (type instanceof ArrowType.Bool && value instanceof StatValue.Bool b) {
      return Optional.of(b.value());
    }
    if (type instanceof ArrowType.Decimal d && value instanceof StatValue.Decimal x) {
      return Optional.of(new BigDecimal(x.unscaled(), d.getScale()));
    }
    if ((type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) && value instanceof StatValue.Bytes b) {
      try {
        // Strict: bytes that are not UTF-8 would not round-trip, and a literal for other bytes would miss rows.
        return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b.value())).toString());
      } catch (CharacterCodingException e) {
        return Optional.empty();
      }
    }
    if ((type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary
        || type instanceof ArrowType.FixedSizeBinary) && value instanceof StatValue.Bytes b) {
      return Optional.of(b.value().clone());
    }
    if (type instanceof ArrowType.Date d && value instanceof StatValue.Int i) {
      if (d.getUnit() == DateUnit.DAY) {
        return Optional.of(LocalDate.ofEpochDay(i.value()));
      }
      return i.value() % 86_400_000L == 0 ? Optional.of(LocalDate.ofEpochDay(i.value() / 86_400_000L))
          : Optional.empty();
    }
    if (type instanceof ArrowType.Timestamp ts && value instanceof StatValue.Int i) {
      long v = i.value();
      Instant instant = switch (ts.getUnit()) {
        case SECOND -> Instant.ofEpochSecond(v);
        case MILLISECOND -> Instant.ofEpochMilli(v);
        case MICROSECOND -> Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1_000L);
        case NANOSECOND -> Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
      };
      boolean zoned = ts.getTimezone() != null && !ts.getTimezone().isEmpty();
      return Optional.of(zoned ? instant : LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
    }
    return Optional.empty(); // time, duration: no literal compares with them
  }

  /** The offsets of fragment {@code id} that may hold a key, or empty when no index answers for it. */
  public Optional<RoaringBitmap> candidates(long fragmentId) {
    return Optional.ofNullable(candidates.get(fragmentId));
  }

  /** Whether an index exists on some key column (so a fragment not answered was scanned without one). */
  public boolean indexed() {
    return indexed;
  }
}
