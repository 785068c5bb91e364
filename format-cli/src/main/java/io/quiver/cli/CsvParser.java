package io.quiver.cli;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * RFC 4180 records straight from a file's bytes, without decoding them: cells are handed over as byte
 * ranges of the read buffer (a quoted cell with its doubled quotes undone in place), so that no String or
 * char[] is made per cell. Fields are separated by the (ASCII) delimiter, records end at LF, CRLF or CR, a
 * field starting with the quote is quoted (delimiters, quotes doubled, CR and LF inside it are data), a quote
 * elsewhere in a field is data. Empty lines are skipped; a leading UTF-8 byte-order mark is skipped.
 *
 * <p>Lines are counted as an editor counts them (LF, CRLF and CR each end one, inside quotes too), so that
 * {@link #line()} is the line the last record started on. Malformed input (a character after a closing
 * quote, a quote not closed before the end of the file, a field longer than {@link #MAX_FIELD}) is a
 * {@link UserException} naming the file and that line. Memory is the read buffer, which grows only for a
 * field longer than it.
 */
final class CsvParser implements AutoCloseable {
  /** Receives a record's cells in order. */
  interface Cells {
    /**
     * Cell {@code index} of the record: {@code len} bytes of {@code buf} from {@code off}, valid only during
     * the call; {@code quoted} if it was written in quotes.
     */
    void cell(int index, byte[] buf, int off, int len, boolean quoted);
  }

  /** The read buffer's size: reads of a megabyte, a few hundred records each. */
  static final int BUFFER = 1 << 20;
  /** The longest field read: a longer one is most likely a quote that is never closed. */
  static final int MAX_FIELD = 16 << 20;

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;
  private static final long LF = '\n' * ONES;
  private static final long CR = '\r' * ONES;

  private final InputStream in;
  /** The delimiter in each of a long's eight bytes. */
  private final long delimiters;
  private final Path file;
  private final byte delimiter;
  private final byte quote;
  private byte[] buf;
  private int pos;
  private int limit;
  private boolean eof;
  /** The line {@link #pos} is on. */
  private long line = 1;
  private long recordLine = 1;
  private int fields;
  private volatile long bytesRead;

  /**
   * A parser of {@code in} (closed by {@link #close}), the bytes of {@code file}, read {@code bufferSize}
   * bytes at a time; {@code delimiter} and {@code quote} are ASCII.
   */
  CsvParser(InputStream in, Path file, char delimiter, char quote, int bufferSize) {
    if (delimiter > 0x7F || quote > 0x7F) {
      throw new IllegalArgumentException("the delimiter and the quote must be ASCII");
    }
    this.in = in;
    this.file = file;
    this.delimiter = (byte) delimiter;
    this.delimiters = delimiter * ONES;
    this.quote = (byte) quote;
    this.buf = new byte[Math.max(bufferSize, 4)];
    while (limit < 3 && !eof) {
      refill(0);
    }
    if (limit >= 3 && (buf[0] & 0xFF) == 0xEF && (buf[1] & 0xFF) == 0xBB && (buf[2] & 0xFF) == 0xBF) {
      pos = 3;
    }
  }

  /** The line the last record read by {@link #next} started on (1-based). */
  long line() {
    return recordLine;
  }

  /** How many fields the last record read by {@link #next} had. */
  int fields() {
    return fields;
  }

  /** Bytes of the file read so far (from any thread). */
  long bytesRead() {
    return bytesRead;
  }

  /** Reads the next record, handing its cells to {@code sink}; false at the end of the file. */
  boolean next(Cells sink) {
    // line breaks before the record: empty lines, skipped
    while (true) {
      if (pos == limit) {
        refill(pos);
        if (pos == limit) {
          return false;
        }
      }
      byte c = buf[pos];
      if (c == '\n') {
        pos++;
        line++;
      } else if (c == '\r') {
        pos++;
        skipLf();
        line++;
      } else {
        break;
      }
    }
    recordLine = line;
    int index = 0;
    while (true) {
      if (pos == limit) {
        refill(pos);
      }
      if (pos < limit && buf[pos] == quote) {
        quoted(sink, index++);
      } else {
        unquoted(sink, index++);
      }
      // pos is on the field's end: the delimiter, a line break, or the end of the file
      if (pos == limit) {
        break;
      }
      byte t = buf[pos++];
      if (t == delimiter) {
        continue;
      }
      if (t == '\r') {
        skipLf();
      }
      line++;
      break;
    }
    fields = index;
    return true;
  }

  /** After a CR: skips the LF of a CRLF, reading on if the CR was the buffer's last byte. */
  private void skipLf() {
    if (pos == limit) {
      refill(pos);
    }
    if (pos < limit && buf[pos] == '\n') {
      pos++;
    }
  }

  private void unquoted(Cells sink, int index) {
    int start = pos;
    int i = pos;
    byte d = delimiter;
    long ds = delimiters;
    while (true) {
      byte[] b = buf;
      int end = limit;
      // eight bytes at a time: the first delimiter, LF or CR among them (SWAR)
      while (i + 8 <= end) {
        long x = (long) LONGS.get(b, i);
        long m = zeroBytes(x ^ ds) | zeroBytes(x ^ LF) | zeroBytes(x ^ CR);
        if (m != 0) {
          i += Long.numberOfTrailingZeros(m) >>> 3;
          end = i;
          break;
        }
        i += 8;
      }
      while (i < end) {
        byte c = b[i];
        if (c == d || c == '\n' || c == '\r') {
          break;
        }
        i++;
      }
      if (i < limit) {
        break;
      }
      int shift = refill(start);
      start -= shift;
      i -= shift;
      if (i == limit) {
        break; // the end of the file ends the field
      }
    }
    pos = i;
    sink.cell(index, buf, start, i - start, false);
  }

  /**
   * The high bit of each zero byte of {@code y} at and below its lowest one (above it a borrow can set more,
   * which the lowest-set-bit reading ignores).
   */
  private static long zeroBytes(long y) {
    return (y - ONES) & ~y & HIGH_BITS;
  }

  private void quoted(Cells sink, int index) {
    int start = pos + 1;
    int i = start;
    // where the next byte of the cell goes: i until a doubled quote, then behind it
    int w = start;
    boolean afterCr = false;
    byte q = quote;
    while (true) {
      if (i == limit) {
        int shift = refill(start);
        start -= shift;
        i -= shift;
        w -= shift;
        if (i == limit) {
          throw malformed("a quoted field is not closed before the end of the file");
        }
      }
      byte c = buf[i];
      if (c == q) {
        if (i + 1 == limit) {
          int shift = refill(start);
          start -= shift;
          i -= shift;
          w -= shift;
        }
        if (i + 1 < limit && buf[i + 1] == q) {
          buf[w++] = q;
          i += 2;
          afterCr = false;
          continue;
        }
        i++; // the closing quote
        break;
      }
      if (c == '\n') {
        if (!afterCr) {
          line++;
        }
        afterCr = false;
      } else if (c == '\r') {
        line++;
        afterCr = true;
      } else {
        afterCr = false;
      }
      buf[w++] = c;
      i++;
    }
    if (i == limit) {
      int shift = refill(start);
      start -= shift;
      i -= shift;
      w -= shift;
    }
    if (i < limit) {
      byte c = buf[i];
      if (c != delimiter && c != '\n' && c != '\r') {
        throw malformed("unexpected character after closing quote: " + describe(c));
      }
    }
    pos = i;
    sink.cell(index, buf, start, w - start, true);
  }

  private static String describe(byte c) {
    return c >= 0x20 && c < 0x7F ? "'" + (char) c + "' (0x" + Integer.toHexString(c) + ")"
        : "byte 0x" + String.format("%02X", c & 0xFF);
  }

  private UserException malformed(String why) {
    return new UserException(file + " line " + recordLine + ": malformed CSV: " + why);
  }

  /**
   * Reads more of the file, keeping the bytes from {@code keep} to the limit (the field being read): they
   * move to the buffer's start, which grows if they fill it. Returns how far they moved; at the end of the
   * file nothing is added to the buffer.
   */
  private int refill(int keep) {
    if (eof) {
      return 0;
    }
    int kept = limit - keep;
    if (keep > 0) {
      System.arraycopy(buf, keep, buf, 0, kept);
      limit = kept;
      pos -= keep;
    } else if (limit == buf.length) {
      if (buf.length >= MAX_FIELD) {
        throw malformed("a field is longer than " + (MAX_FIELD >> 20) + " MiB (is a quote not closed?)");
      }
      buf = Arrays.copyOf(buf, Math.min(buf.length * 2, MAX_FIELD));
    }
    try {
      int n;
      do {
        n = in.read(buf, limit, buf.length - limit);
      } while (n == 0);
      if (n < 0) {
        eof = true;
      } else {
        limit += n;
        bytesRead += n;
      }
    } catch (IOException e) {
      throw new UserException("cannot read " + file + ": " + ImportSource.rootMessage(e), e);
    }
    return keep;
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      // read-only; nothing to lose
    }
  }
}
