package io.quiver.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The fast path of JSON lines import: reads the file line by line into one buffer and writes each line's
 * object from its UTF-8 bytes straight into the column writers (names compared as bytes, strings copied as
 * bytes, numbers, dates and timestamps parsed from ASCII), without Jackson's tokens, Strings or chars.
 *
 * <p>It only takes what it is sure of: a line that is one strict-JSON object whose values all fit their
 * columns. Anything else (a bad value, an unknown or repeated field, an escape in a name, an object or array
 * kept as text, a line that is not exactly one object, invalid JSON) makes {@link #row} answer
 * {@link #FALLBACK} and {@link JsonSource} reads that line, or from there on the rest of the file, with
 * Jackson, which writes the row again from its start or throws the error it always threw. So the fast path
 * never decides an outcome: values and errors are Jackson's.
 */
final class JsonLines implements AutoCloseable {
  /** What {@link #row} returns for a line written. */
  static final int ROW = 1;
  /** What {@link #row} returns for a line of whitespace only. */
  static final int BLANK = 0;
  /** What {@link #row} returns for a line it leaves to Jackson (the row may be partly written). */
  static final int FALLBACK = -1;
  /** The longest line read here; a longer one goes to Jackson, which streams it. Tests make it small. */
  static int maxLine = 16 << 20;
  /** Longest number text taken here (Jackson's own limit is 1000 digits). */
  private static final int MAX_NUMBER = 100;
  /** Longest field name taken here (Jackson's own limit is 50,000 bytes). */
  private static final int MAX_NAME = 1000;

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);

  private final InputStream in;
  private byte[] buf;
  /** Bytes of {@link #buf} read from the stream. */
  private int limit;
  private boolean eof;
  /** Start of the next line. */
  private int next;
  /** Where the search for the next line's end resumes (after a refill, the bytes before are no newline). */
  private int searched;
  /** The current line: its bytes [start, end) and its number (1-based). */
  private int start;
  private int end;
  private long line;

  // the scan: position in buf, and the last string read (its bytes in strBuf [strOff, strOff + strLen))
  private int p;
  private byte[] strBuf;
  private int strOff;
  private int strLen;
  /** Unescaped strings. */
  private byte[] scratch = new byte[256];

  JsonLines(InputStream in, int bufferSize) {
    this.in = in;
    this.buf = new byte[bufferSize];
  }

  /** The current line's number (1-based), or the number of lines read. */
  long line() {
    return line;
  }

  /**
   * Moves to the next line; false at the end of the file or when the line is longer than {@link #maxLine}
   * (then {@link #rest} from {@link #lineStart} reads it).
   */
  boolean nextLine() throws IOException {
    while (true) {
      int nl = newline(buf, searched, limit);
      if (nl >= 0) {
        start = next;
        end = nl;
        next = nl + 1;
        searched = next;
        line++;
        return true;
      }
      searched = limit;
      if (eof) {
        if (next == limit) {
          return false;
        }
        start = next;
        end = limit;
        next = limit;
        searched = limit;
        line++;
        return true;
      }
      if (limit - next >= maxLine) {
        return false;
      }
      refill();
    }
  }

  /** Whether the end of the input is reached (false after {@link #nextLine} stopped at a long line). */
  boolean atEnd() {
    return eof && next == limit;
  }

  /** Where the line {@link #nextLine} moves to next starts (after a false: the long line's start). */
  int lineStart() {
    return next;
  }

  /** The current line's bytes as Jackson reads them (for its one-line attempt). */
  byte[] buffer() {
    return buf;
  }

  int start() {
    return start;
  }

  int end() {
    return end;
  }

  /** The input from {@code from} in the buffer on: the buffered bytes, then the rest of the stream. */
  InputStream rest(int from) {
    return new SequenceInputStream(new ByteArrayInputStream(buf, from, limit - from), in);
  }

  private void refill() throws IOException {
    int keep = limit - next;
    if (next > 0) {
      System.arraycopy(buf, next, buf, 0, keep);
      searched -= next;
      next = 0;
      limit = keep;
    }
    if (limit == buf.length) {
      byte[] bigger = new byte[(int) Math.min((long) buf.length * 2, maxLine + 1L)];
      System.arraycopy(buf, 0, bigger, 0, limit);
      buf = bigger;
    }
    int n = in.read(buf, limit, buf.length - limit);
    if (n < 0) {
      eof = true;
    } else {
      limit += n;
    }
  }

  /** The index of the first '\n' in [from, to), or -1; eight bytes at a time. */
  private static int newline(byte[] b, int from, int to) {
    int i = from;
    while (i + 8 <= to) {
      long x = (long) LONGS.get(b, i) ^ 0x0A0A0A0A0A0A0A0AL;
      long found = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
      i += 8;
    }
    for (; i < to; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  // ------------------------------------------------------------------ the scan

  /**
   * Writes the current line's object into row {@code row} of the fields: {@link #ROW}, {@link #BLANK} or
   * {@link #FALLBACK}.
   */
  int row(ColumnWriter.Fields fields, int row) {
    p = start;
    skipWs();
    if (p == end) {
      return BLANK;
    }
    if (buf[p] != '{') {
      return FALLBACK;
    }
    p++;
    try {
      if (!object(fields, row)) {
        return FALLBACK;
      }
    } catch (ColumnWriter.BadCell | NumberFormatException e) {
      return FALLBACK;
    }
    skipWs();
    return p == end ? ROW : FALLBACK;
  }

  private void skipWs() {
    while (p < end) {
      byte c = buf[p];
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        return;
      }
      p++;
    }
  }

  /** The members of an object after its '{', up to and including its '}'. */
  private boolean object(ColumnWriter.Fields fields, int row) {
    int stamp = fields.begin();
    skipWs();
    if (p < end && buf[p] == '}') {
      p++;
      fields.end(stamp, row);
      return true;
    }
    int expected = 0;
    while (true) {
      if (p >= end || buf[p] != '"') {
        return false;
      }
      int nameStart = ++p;
      while (p < end) {
        byte c = buf[p];
        if (c == '"') {
          break;
        }
        if (c == '\\' || (c >= 0 && c < 0x20)) {
          return false;
        }
        p++;
      }
      if (p >= end || p - nameStart > MAX_NAME) {
        return false;
      }
      int i = fields.find(buf, nameStart, p - nameStart, expected);
      p++;
      if (i < 0 || !fields.see(i, stamp)) {
        return false;
      }
      expected = i + 1;
      skipWs();
      if (p >= end || buf[p] != ':') {
        return false;
      }
      p++;
      skipWs();
      if (!value(fields.writers[i], row)) {
        return false;
      }
      skipWs();
      if (p >= end) {
        return false;
      }
      byte c = buf[p++];
      if (c == '}') {
        fields.end(stamp, row);
        return true;
      }
      if (c != ',') {
        return false;
      }
      skipWs();
    }
  }

  /** The elements of an array after its '[', up to and including its ']'. */
  private boolean array(ColumnWriter.Items items, int row) {
    int first = items.start(row);
    int n = 0;
    skipWs();
    if (p < end && buf[p] == ']') {
      p++;
      items.v.endValue(row, 0);
      return true;
    }
    while (true) {
      if (!value(items.item, first + n)) {
        return false;
      }
      n++;
      skipWs();
      if (p >= end) {
        return false;
      }
      byte c = buf[p++];
      if (c == ']') {
        items.v.endValue(row, n);
        return true;
      }
      if (c != ',') {
        return false;
      }
      skipWs();
    }
  }

  /** One value into the writer's row (the writer throws BadCell for a value that does not fit). */
  private boolean value(ColumnWriter w, int row) {
    if (p >= end) {
      return false;
    }
    boolean nested = w instanceof ColumnWriter.Struct || w instanceof ColumnWriter.Items;
    byte c = buf[p];
    switch (c) {
      case '"' -> {
        if (nested || !string()) {
          return false;
        }
        w.bytes(strBuf, strOff, strLen, row);
        return true;
      }
      case '{' -> {
        if (!(w instanceof ColumnWriter.Struct s)) {
          return false;
        }
        p++;
        s.define(row);
        return object(s.fields, row);
      }
      case '[' -> {
        if (!(w instanceof ColumnWriter.Items items)) {
          return false;
        }
        p++;
        return array(items, row);
      }
      case 'n' -> {
        if (!literal("null")) {
          return false;
        }
        w.nul(row);
        return true;
      }
      case 't', 'f' -> {
        int at = p;
        if (nested || !literal(c == 't' ? "true" : "false")) {
          return false;
        }
        w.bytes(buf, at, p - at, row);
        return true;
      }
      default -> {
        return !nested && number(w, row);
      }
    }
  }

  private boolean literal(String word) {
    int n = word.length();
    if (end - p < n) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (buf[p + i] != word.charAt(i)) {
        return false;
      }
    }
    p += n;
    return true;
  }

  /** A strict JSON number: {@code -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?}. */
  private boolean number(ColumnWriter w, int row) {
    int at = p;
    if (buf[p] == '-') {
      p++;
    }
    if (p >= end) {
      return false;
    }
    if (buf[p] == '0') {
      p++;
    } else if (buf[p] >= '1' && buf[p] <= '9') {
      digits();
    } else {
      return false;
    }
    boolean integral = true;
    if (p < end && buf[p] == '.') {
      p++;
      if (digits() == 0) {
        return false;
      }
      integral = false;
    }
    if (p < end && (buf[p] == 'e' || buf[p] == 'E')) {
      p++;
      if (p < end && (buf[p] == '+' || buf[p] == '-')) {
        p++;
      }
      if (digits() == 0) {
        return false;
      }
      integral = false;
    }
    int len = p - at;
    if (len > MAX_NUMBER) {
      return false;
    }
    if (w instanceof ColumnWriter.Floating f) {
      if (integral) {
        f.integral(buf, at, len, row);
        return true;
      }
    } else if (w instanceof ColumnWriter.Int && !integral) {
      return false; // Jackson's float token: a bad cell
    }
    w.bytes(buf, at, len, row);
    return true;
  }

  private int digits() {
    int from = p;
    while (p < end && buf[p] >= '0' && buf[p] <= '9') {
      p++;
    }
    return p - from;
  }

  /** A string after its '"' (p on the quote): its UTF-8 bytes in strBuf, unescaped. */
  private boolean string() {
    int from = ++p;
    while (p < end) {
      byte c = buf[p];
      if (c == '"') {
        strBuf = buf;
        strOff = from;
        strLen = p - from;
        p++;
        return true;
      }
      if (c == '\\') {
        return escaped(from);
      }
      if (c >= 0 && c < 0x20) {
        return false;
      }
      p++;
    }
    return false;
  }

  /** The rest of a string with escapes (p on the first backslash), unescaped into scratch. */
  private boolean escaped(int from) {
    if (scratch.length < end - from) {
      scratch = new byte[Math.max(end - from, scratch.length * 2)];
    }
    byte[] out = scratch;
    int n = p - from;
    System.arraycopy(buf, from, out, 0, n);
    while (p < end) {
      byte c = buf[p];
      if (c == '"') {
        strBuf = out;
        strOff = 0;
        strLen = n;
        p++;
        return true;
      }
      if (c >= 0 && c < 0x20) {
        return false;
      }
      if (c != '\\') {
        out[n++] = c;
        p++;
        continue;
      }
      if (++p >= end) {
        return false;
      }
      byte e = buf[p++];
      switch (e) {
        case '"', '\\', '/' -> out[n++] = e;
        case 'b' -> out[n++] = '\b';
        case 'f' -> out[n++] = '\f';
        case 'n' -> out[n++] = '\n';
        case 'r' -> out[n++] = '\r';
        case 't' -> out[n++] = '\t';
        case 'u' -> {
          int cp = hex4();
          if (cp < 0) {
            return false;
          }
          if (Character.isHighSurrogate((char) cp)) {
            if (end - p < 6 || buf[p] != '\\' || buf[p + 1] != 'u') {
              return false; // a lone surrogate: Jackson's text, then the writer's judgement
            }
            p += 2;
            int low = hex4();
            if (low < 0 || !Character.isLowSurrogate((char) low)) {
              return false;
            }
            cp = Character.toCodePoint((char) cp, (char) low);
          } else if (Character.isLowSurrogate((char) cp)) {
            return false;
          }
          n = encode(cp, out, n);
        }
        default -> {
          return false;
        }
      }
    }
    return false;
  }

  /** Four hexadecimal digits at p (consumed), or -1. */
  private int hex4() {
    if (end - p < 4) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(buf[p + i], 16);
      if (d < 0) {
        return -1;
      }
      v = v << 4 | d;
    }
    p += 4;
    return v;
  }

  private static int encode(int cp, byte[] out, int n) {
    if (cp < 0x80) {
      out[n++] = (byte) cp;
    } else if (cp < 0x800) {
      out[n++] = (byte) (0xC0 | (cp >> 6));
      out[n++] = (byte) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out[n++] = (byte) (0xE0 | (cp >> 12));
      out[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
      out[n++] = (byte) (0x80 | (cp & 0x3F));
    } else {
      out[n++] = (byte) (0xF0 | (cp >> 18));
      out[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
      out[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
      out[n++] = (byte) (0x80 | (cp & 0x3F));
    }
    return n;
  }
}
