package io.quiver.internal.index;

import com.google.protobuf.ByteString;
import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.file.StatValues;
import io.quiver.internal.proto.BtreePage;
import io.quiver.internal.proto.PageKeyKind;
import io.quiver.manifest.StatValue;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Compact btree pages (docs/format.md §13.2, envelope magic {@code QVXC}, payload {@link BtreePage}): the keys of a
 * page as one varint stream (integer keys as differences, byte-string keys with the prefix they share with the
 * previous key left out), the row count of each key (left out when every key has one row) and the row addresses of
 * each key as fragment id and offset varints, differences within a key's run. About 5 bytes a row for distinct
 * integer keys against 17 for a {@code QVXP} {@code IndexPage}.
 */
final class BtreePages {
  private BtreePages() {}

  /** The page key kind for keys like {@code key}; empty for a kind compact pages do not encode (none is indexed). */
  static Optional<PageKeyKind> kindOf(StatValue key) {
    if (key instanceof StatValue.Int) {
      return Optional.of(PageKeyKind.PAGE_KEY_KIND_INT);
    } else if (key instanceof StatValue.UInt64) {
      return Optional.of(PageKeyKind.PAGE_KEY_KIND_UINT);
    } else if (key instanceof StatValue.Bytes) {
      return Optional.of(PageKeyKind.PAGE_KEY_KIND_BYTES);
    } else if (key instanceof StatValue.Decimal) {
      return Optional.of(PageKeyKind.PAGE_KEY_KIND_DECIMAL);
    } else if (key instanceof StatValue.Bool) {
      return Optional.of(PageKeyKind.PAGE_KEY_KIND_BOOL);
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------- writing

  /** Accumulates one page: keys in ascending order, each with its ascending row addresses. */
  static final class Writer {
    private final PageKeyKind kind;
    private final Bytes keyData = new Bytes();
    private final Bytes counts = new Bytes();
    private final Bytes addressData = new Bytes();
    private int keys;
    private long rows;
    private boolean allSingle = true;
    private long previousKey;
    private byte[] previousBytes;

    Writer(PageKeyKind kind) {
      this.kind = kind;
    }

    int keys() {
      return keys;
    }

    /** The page's payload size so far, give or take a few bytes of field tags. */
    int bytes() {
      return keyData.size + (allSingle ? 0 : counts.size) + addressData.size + 24;
    }

    /** Adds the key of entries[from], a primitive key, with the addresses of entries[from..to). */
    void addPrimitive(IndexEntries entries, int from, int to) {
      addPrimitiveValue(entries.rawKey(from));
      addRows(entries, from, to);
    }

    /** Adds {@code key} (not a primitive key) with the addresses of entries[from..to). */
    void add(StatValue key, IndexEntries entries, int from, int to) {
      switch (kind) {
        case PAGE_KEY_KIND_INT -> addPrimitiveValue(((StatValue.Int) key).value());
        case PAGE_KEY_KIND_UINT -> addPrimitiveValue(((StatValue.UInt64) key).bits());
        case PAGE_KEY_KIND_BOOL -> keyData.write(((StatValue.Bool) key).value() ? 1 : 0);
        case PAGE_KEY_KIND_BYTES -> addBytes(((StatValue.Bytes) key).value());
        case PAGE_KEY_KIND_DECIMAL -> addBytes(((StatValue.Decimal) key).unscaled().toByteArray());
        default -> throw new IllegalArgumentException("no compact encoding for key kind " + kind);
      }
      addRows(entries, from, to);
    }

    private void addPrimitiveValue(long key) {
      if (keys == 0) {
        keyData.varint(kind == PageKeyKind.PAGE_KEY_KIND_INT ? (key << 1) ^ (key >> 63) : key);
      } else {
        keyData.varint(key - previousKey);
      }
      previousKey = key;
    }

    private void addBytes(byte[] key) {
      int shared = 0;
      if (previousBytes != null) {
        int max = Math.min(previousBytes.length, key.length);
        while (shared < max && previousBytes[shared] == key[shared]) {
          shared++;
        }
      }
      keyData.varint(shared);
      keyData.varint(key.length - shared);
      keyData.write(key, shared, key.length - shared);
      previousBytes = key;
    }

    private void addRows(IndexEntries entries, int from, int to) {
      int run = to - from;
      counts.varint(run);
      allSingle &= run == 1;
      long fragment = RowAddress.fragmentId(entries.address(from));
      long offset = RowAddress.offset(entries.address(from));
      addressData.varint(fragment);
      addressData.varint(offset);
      for (int r = from + 1; r < to; r++) {
        long f = RowAddress.fragmentId(entries.address(r));
        long o = RowAddress.offset(entries.address(r));
        addressData.varint(f - fragment);
        addressData.varint(f == fragment ? o - offset - 1 : o);
        fragment = f;
        offset = o;
      }
      keys++;
      rows += run;
    }

    BtreePage build() {
      return BtreePage.newBuilder().setKeys(keys).setKeyKind(kind).setKeyData(keyData.toByteString())
          .setRowCounts(allSingle ? ByteString.EMPTY : counts.toByteString())
          .setAddressData(addressData.toByteString()).setRows(rows).build();
    }
  }

  /** A growable byte buffer with unsigned LEB128 varints. */
  private static final class Bytes {
    private byte[] buf = new byte[256];
    private int size;

    void write(int b) {
      if (size == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      buf[size++] = (byte) b;
    }

    void write(byte[] b, int off, int len) {
      if (size + len > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + len));
      }
      System.arraycopy(b, off, buf, size, len);
      size += len;
    }

    void varint(long v) {
      while ((v & ~0x7FL) != 0) {
        write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      write((int) v);
    }

    ByteString toByteString() {
      return ByteString.copyFrom(buf, 0, size);
    }
  }

  // ---------------------------------------------------------------- reading

  /**
   * A decoded page: for key {@code i}, its rows are {@code addresses[starts[i] .. starts[i+1])} (the last key's run
   * ends at the end of {@code addresses}).
   */
  record Decoded(List<StatValue> keys, int[] starts, long[] addresses) {}

  /**
   * Decodes {@code page} (the page at {@code offset} of the file at {@code location}).
   *
   * @throws CorruptFileException naming {@code location} when a stream is truncated, has bytes left over, or
   *     decodes to keys out of order, a key without rows or addresses out of order
   */
  static Decoded decode(BtreePage page, String location, long offset) {
    String where = "index page at " + offset;
    int n = page.getKeys();
    if (n <= 0) {
      throw new CorruptFileException(location, where + " has " + Integer.toUnsignedString(n)
          + " keys; a compact btree page holds at least one and at most " + Integer.MAX_VALUE);
    }
    byte[] addressData = page.getAddressData().toByteArray();
    // Every address takes at least two bytes: a larger row count is corrupt (and must not size an allocation).
    if (page.getRows() < n || page.getRows() > addressData.length / 2) {
      throw new CorruptFileException(location, where + " says " + Long.toUnsignedString(page.getRows()) + " rows for "
          + n + " keys in " + addressData.length + " bytes of addresses; expected between " + n + " and "
          + addressData.length / 2);
    }
    int rows = (int) page.getRows();
    Reader keyData = new Reader(page.getKeyData().toByteArray(), location, where + ": keys");
    List<StatValue> keys = new ArrayList<>(Math.min(n, keyData.remaining() + 1));
    PageKeyKind kind = page.getKeyKind();
    long previous = 0;
    byte[] previousBytes = new byte[0];
    StatValue previousKey = null;
    for (int i = 0; i < n; i++) {
      StatValue key;
      switch (kind) {
        case PAGE_KEY_KIND_INT, PAGE_KEY_KIND_UINT -> {
          long v;
          if (i == 0) {
            long raw = keyData.varint();
            v = kind == PageKeyKind.PAGE_KEY_KIND_INT ? (raw >>> 1) ^ -(raw & 1) : raw;
          } else {
            long delta = keyData.varint();
            v = previous + delta;
            boolean ascends = kind == PageKeyKind.PAGE_KEY_KIND_INT ? v > previous
                : Long.compareUnsigned(v, previous) > 0;
            if (delta == 0 || !ascends) {
              throw new CorruptFileException(location, where + ": key " + i + " does not follow key " + (i - 1)
                  + " in ascending order (difference " + Long.toUnsignedString(delta) + ")");
            }
          }
          previous = v;
          key = kind == PageKeyKind.PAGE_KEY_KIND_INT ? new StatValue.Int(v) : new StatValue.UInt64(v);
        }
        case PAGE_KEY_KIND_BOOL -> {
          int b = keyData.readByte();
          if (b != 0 && b != 1) {
            throw new CorruptFileException(location, where + ": boolean key " + i + " is byte " + b
                + "; expected 0 or 1");
          }
          key = new StatValue.Bool(b == 1);
        }
        case PAGE_KEY_KIND_BYTES, PAGE_KEY_KIND_DECIMAL -> {
          long shared = keyData.varint();
          long suffix = keyData.varint();
          if (shared > previousBytes.length || suffix > keyData.remaining()) {
            throw new CorruptFileException(location, where + ": key " + i + " shares " + shared + " bytes with a "
                + previousBytes.length + "-byte key and has a " + suffix + "-byte suffix with "
                + keyData.remaining() + " bytes left");
          }
          byte[] b = Arrays.copyOf(previousBytes, (int) (shared + suffix));
          keyData.read(b, (int) shared, (int) suffix);
          previousBytes = b;
          if (kind == PageKeyKind.PAGE_KEY_KIND_BYTES) {
            key = new StatValue.Bytes(b);
          } else if (b.length == 0) {
            throw new CorruptFileException(location, where + ": decimal key " + i + " has no bytes");
          } else {
            key = new StatValue.Decimal(new BigInteger(b));
          }
        }
        default -> throw new CorruptFileException(location, where + " has key kind " + page.getKeyKindValue()
            + ", which this build does not know (expected 1 to 5, docs/format.md §13.2); upgrade the reader, or"
            + " scan without indices");
      }
      if (previousKey != null && kind != PageKeyKind.PAGE_KEY_KIND_INT && kind != PageKeyKind.PAGE_KEY_KIND_UINT
          && StatValues.compare(previousKey, key) >= 0) {
        throw new CorruptFileException(location, where + ": key " + i + " (" + key + ") does not follow key "
            + (i - 1) + " (" + previousKey + ") in ascending order");
      }
      previousKey = key;
      keys.add(key);
    }
    keyData.expectEnd();

    int[] starts = new int[n];
    byte[] countBytes = page.getRowCounts().toByteArray();
    if (countBytes.length == 0) {
      if (rows != n) {
        throw new CorruptFileException(location, where + " has no row counts (one row per key) but says " + rows
            + " rows for " + n + " keys");
      }
      for (int i = 0; i < n; i++) {
        starts[i] = i;
      }
    } else {
      Reader counts = new Reader(countBytes, location, where + ": row counts");
      long sum = 0;
      for (int i = 0; i < n; i++) {
        starts[i] = (int) sum;
        long c = counts.varint();
        if (c < 1 || c > rows - sum) {
          throw new CorruptFileException(location, where + ": key " + i + " has " + Long.toUnsignedString(c)
              + " rows; expected at least 1 and at most the page's " + rows + " rows less the " + sum + " before it");
        }
        sum += c;
      }
      counts.expectEnd();
      if (sum != rows) {
        throw new CorruptFileException(location, where + ": row counts add up to " + sum + ", the page says " + rows);
      }
    }

    long[] addresses = new long[rows];
    Reader in = new Reader(addressData, location, where + ": addresses");
    for (int i = 0; i < n; i++) {
      int end = i + 1 < n ? starts[i + 1] : rows;
      long fragment = in.varint();
      long offsetInFragment = in.varint();
      addresses[starts[i]] = address(fragment, offsetInFragment, location, where);
      for (int r = starts[i] + 1; r < end; r++) {
        long df = in.varint();
        long next = in.varint();
        // Out-of-range parts become -1, which address() rejects.
        if (df != 0) {
          fragment = Long.compareUnsigned(df, 0xFFFF_FFFFL) > 0 ? -1 : fragment + df;
          offsetInFragment = next;
        } else {
          offsetInFragment = Long.compareUnsigned(next, 0xFFFF_FFFFL) >= 0 ? -1 : offsetInFragment + next + 1;
        }
        addresses[r] = address(fragment, offsetInFragment, location, where);
      }
    }
    in.expectEnd();
    return new Decoded(List.copyOf(keys), starts, addresses);
  }

  private static long address(long fragment, long offset, String location, String where) {
    if (fragment < 0 || fragment > 0xFFFF_FFFFL || offset < 0 || offset > 0xFFFF_FFFFL) {
      throw new CorruptFileException(location, where + " has a row address out of range (fragment id "
          + Long.toUnsignedString(fragment) + ", offset " + Long.toUnsignedString(offset)
          + "); expected 32-bit fragment ids and offsets");
    }
    return RowAddress.of(fragment, offset);
  }

  /** Reads varints and bytes from one stream of a page; running past its end is a {@link CorruptFileException}. */
  private static final class Reader {
    private final byte[] buf;
    private final String location;
    private final String what;
    private int pos;

    Reader(byte[] buf, String location, String what) {
      this.buf = buf;
      this.location = location;
      this.what = what;
    }

    int remaining() {
      return buf.length - pos;
    }

    int readByte() {
      if (pos >= buf.length) {
        throw truncated();
      }
      return buf[pos++] & 0xFF;
    }

    void read(byte[] into, int off, int len) {
      if (len > remaining()) {
        throw truncated();
      }
      System.arraycopy(buf, pos, into, off, len);
      pos += len;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = readByte();
        if (shift == 63 && (b & 0xFE) != 0) {
          break;
        }
        v |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return v;
        }
      }
      throw new CorruptFileException(location, what + ": varint at byte " + pos + " is longer than 64 bits");
    }

    void expectEnd() {
      if (pos != buf.length) {
        throw new CorruptFileException(location, what + ": " + (buf.length - pos) + " bytes left over after the"
            + " page's last entry; expected none");
      }
    }

    private CorruptFileException truncated() {
      return new CorruptFileException(location, what + " end after " + buf.length + " bytes, in the middle of an"
          + " entry: the page is truncated or damaged");
    }
  }
}
