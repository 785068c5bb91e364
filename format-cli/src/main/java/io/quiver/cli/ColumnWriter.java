package io.quiver.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.NumberInput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Writes one column's cells, parsed from CSV bytes (UTF-8, as they are in the file) or read from a JSON
 * token stream, straight into its Arrow vector. A value that does not fit the column's type throws {@link
 * BadCell}; the source turns it into a one-line message with the file, line and column.
 */
abstract class ColumnWriter {
  final FieldVector vector;
  final String path;
  /** Rows a fixed-width vector holds without growing, as of the last {@link #reserve}: written unchecked. */
  int capacity;
  /** Text encoded as UTF-8 (JSON strings, for {@link #bytes}). */
  byte[] scratch = new byte[64];

  ColumnWriter(FieldVector vector, String path) {
    this.vector = vector;
    this.path = path;
  }

  /** The column type's name as {@code --type} spells it. */
  String typeName() {
    return Types.name(vector.getField().getType());
  }

  /**
   * Writes a non-null cell from {@code len} bytes of UTF-8 text (a CSV cell). Bytes that are not UTF-8 throw
   * {@link BadCell} like any value that does not fit; the caller tells the two apart ({@link Utf8#valid}).
   */
  abstract void bytes(byte[] buf, int off, int len, int row);

  /** Writes a non-null cell from text (a JSON string): its UTF-8 bytes, as {@link #bytes} reads them. */
  void text(char[] buf, int off, int len, int row) {
    int n = utf8(buf, off, len); // first: it may replace scratch
    bytes(scratch, 0, n, row);
  }

  /** Encodes text into {@link #scratch}; returns the byte count. A lone surrogate is a bad cell. */
  final int utf8(char[] buf, int off, int len) {
    if (scratch.length < len * 3) {
      scratch = new byte[Math.max(len * 3, scratch.length * 2)];
    }
    int n = Utf8.encode(buf, off, len, scratch);
    if (n < 0) {
      throw bad(buf, off, len);
    }
    return n;
  }

  /**
   * Makes room for {@code rows} values in a fixed-width vector (once per batch), so that the writes up to
   * there skip the capacity check of {@code setSafe}.
   */
  void reserve(int rows) {
    if (vector instanceof BaseFixedWidthVector f) {
      while (f.getValueCapacity() < rows) {
        f.reAlloc();
      }
      capacity = f.getValueCapacity();
    }
  }

  /**
   * A variable-width vector's {@link #reserve}: room for {@code rows} offsets and validity bits; returns its
   * data buffer's capacity in bytes.
   */
  final long reserveOffsets(BaseVariableWidthVector v, int rows) {
    while (v.getValueCapacity() < rows) {
      v.reallocValidityAndOffsetBuffers();
    }
    capacity = v.getValueCapacity();
    return v.getDataBuffer().capacity();
  }

  /** Writes a null cell. */
  void nul(int row) {
    if (vector instanceof BaseFixedWidthVector f) {
      f.setNull(row);
    } else if (vector instanceof BaseVariableWidthVector v) {
      v.setNull(row);
    } else if (vector instanceof StructVector s) {
      s.setNull(row);
    } else if (vector instanceof ListVector l) {
      l.setNull(row);
    } else {
      throw new IllegalStateException("no null for " + vector.getClass().getSimpleName());
    }
  }

  /** Whether an empty or {@code --null} cell in CSV is null even when quoted (false only for text). */
  boolean quotedNullIsNull() {
    return true;
  }

  /** Writes the JSON value the parser is on (its first token is current) and leaves it on its last token. */
  void json(JsonParser p, int row) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.VALUE_NULL) {
      nul(row);
      return;
    }
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      throw new BadCell(t == JsonToken.START_OBJECT ? "an object" : "an array");
    }
    jsonScalar(p, t, row);
  }

  /** A scalar token; by default its text (strings unquoted, numbers and booleans as written). */
  void jsonScalar(JsonParser p, JsonToken t, int row) throws IOException {
    text(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), row);
  }

  // ------------------------------------------------------------------ factory

  static ColumnWriter of(FieldVector v, String path) {
    if (v instanceof BitVector b) {
      return new Bool(b, path);
    }
    if (v instanceof BigIntVector || v instanceof IntVector || v instanceof SmallIntVector
        || v instanceof TinyIntVector) {
      return new Int(v, path);
    }
    if (v instanceof Float8Vector || v instanceof Float4Vector) {
      return new Floating(v, path);
    }
    if (v instanceof DecimalVector d) {
      return new Decimal(d, path);
    }
    if (v instanceof DateDayVector d) {
      return new Date(d, path);
    }
    if (v instanceof TimeStampVector t) {
      return new Timestamp(t, path);
    }
    if (v instanceof VarCharVector s) {
      return new Text(s, path);
    }
    if (v instanceof VarBinaryVector b) {
      return new Binary(b, path);
    }
    if (v instanceof StructVector s) {
      return new Struct(s, path);
    }
    if (v instanceof ListVector l) {
      return new Items(l, path);
    }
    throw new UserException("import cannot write column '" + path + "' of type "
        + Types.name(v.getField().getType()) + "; import Arrow IPC files for such tables");
  }

  // ------------------------------------------------------------------ errors

  /** A cell that does not fit the column's type; cheap (no stack trace), caught by the source. */
  static final class BadCell extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String value;

    BadCell(String value) {
      super(value, null, false, false);
      this.value = value;
    }
  }

  static BadCell bad(char[] buf, int off, int len) {
    return new BadCell(new String(buf, off, Math.min(len, 200)));
  }

  /** The cell's first 200 characters (enough bytes for them, decoded). */
  static BadCell bad(byte[] buf, int off, int len) {
    String s = new String(buf, off, Math.min(len, 800), StandardCharsets.UTF_8);
    return new BadCell(s.length() > 200 ? s.substring(0, 200) : s);
  }

  // ------------------------------------------------------------------ scalar parsing (shared with inference)

  /** What the parsers below throw for text that is not one: shared, without a stack trace (cheap to throw). */
  private static final class NotANumber extends NumberFormatException {
    private static final long serialVersionUID = 1L;

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /** What the date parsers below throw for text that is not one: shared, without a stack trace. */
  private static final class NotADate extends DateTimeException {
    private static final long serialVersionUID = 1L;

    NotADate() {
      super("not a date or timestamp");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  private static final NumberFormatException NOT_A_NUMBER = new NotANumber();
  private static final DateTimeException NOT_A_DATE = new NotADate();

  // The parsers read UTF-8 bytes (CSV cells as they are in the file; JSON strings encoded). Every spelling
  // they accept is ASCII, so a byte with its high bit set (part of a non-ASCII character) never matches.

  static int trimStart(byte[] b, int off, int end) {
    while (off < end && (b[off] == ' ' || b[off] == '\t')) {
      off++;
    }
    return off;
  }

  static int trimEnd(byte[] b, int off, int end) {
    while (end > off && (b[end - 1] == ' ' || b[end - 1] == '\t')) {
      end--;
    }
    return end;
  }

  /** The cell's text without leading and trailing spaces and tabs (for parsers that read any script). */
  static char[] trimmedText(byte[] b, int off, int len) {
    int s = trimStart(b, off, off + len);
    int e = trimEnd(b, s, off + len);
    return new String(b, s, e - s, StandardCharsets.UTF_8).toCharArray();
  }

  /** A decimal integer (optional sign); throws NumberFormatException when not one or out of long's range. */
  static long parseLong(byte[] b, int off, int end) {
    off = trimStart(b, off, end);
    end = trimEnd(b, off, end);
    if (off == end) {
      throw NOT_A_NUMBER;
    }
    boolean negative = false;
    byte first = b[off];
    if (first == '-' || first == '+') {
      negative = first == '-';
      off++;
      if (off == end) {
        throw NOT_A_NUMBER;
      }
    }
    if (end - off > 19) {
      throw NOT_A_NUMBER;
    }
    long r = 0;
    if (end - off <= 18) {
      // cannot overflow
      for (int i = off; i < end; i++) {
        int d = b[i] - '0';
        if (d < 0 || d > 9) {
          throw NOT_A_NUMBER;
        }
        r = r * 10 - d;
      }
      return negative ? r : -r;
    }
    for (int i = off; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw NOT_A_NUMBER;
      }
      // accumulate negatively so that Long.MIN_VALUE parses
      if (r < (Long.MIN_VALUE + d) / 10) {
        throw NOT_A_NUMBER;
      }
      r = r * 10 - d;
    }
    if (!negative) {
      if (r == Long.MIN_VALUE) {
        throw NOT_A_NUMBER;
      }
      return -r;
    }
    return r;
  }

  /** {@code true} or {@code false} in any ASCII case, trimmed of spaces and tabs. */
  static boolean isBool(byte[] b, int off, int end) {
    return bool(b, off, end) >= 0;
  }

  /** 1 for true, 0 for false, -1 for neither (as {@link #isBool} reads them). */
  private static int bool(byte[] b, int off, int end) {
    int s = trimStart(b, off, end);
    int e = trimEnd(b, s, end);
    int n = e - s;
    if (n == 4 && asciiIgnoreCase(b, s, "true")) {
      return 1;
    }
    return n == 5 && asciiIgnoreCase(b, s, "false") ? 0 : -1;
  }

  /** Whether the bytes at off are the lower-case ASCII word (letters only), in any ASCII case. */
  private static boolean asciiIgnoreCase(byte[] b, int off, String word) {
    for (int i = 0; i < word.length(); i++) {
      int c = b[off + i];
      if (c != word.charAt(i) && c != word.charAt(i) - ('a' - 'A')) {
        return false;
      }
    }
    return true;
  }

  private static int digits(byte[] b, int off, int n) {
    int r = 0;
    for (int i = off; i < off + n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw NOT_A_DATE;
      }
      r = r * 10 + d;
    }
    return r;
  }

  /** {@code yyyy-mm-dd} as days since the epoch; throws DateTimeException when not a date. */
  static int parseDate(byte[] b, int off, int end) {
    off = trimStart(b, off, end);
    end = trimEnd(b, off, end);
    if (end - off != 10 || b[off + 4] != '-' || b[off + 7] != '-') {
      throw NOT_A_DATE;
    }
    return (int) epochDay(digits(b, off, 4), digits(b, off + 5, 2), digits(b, off + 8, 2));
  }

  /** {@link #parseDate(byte[], int, int)} of text (JSON strings). */
  static int parseDate(char[] b, int off, int end) {
    byte[] u = new String(b, off, end - off).getBytes(StandardCharsets.UTF_8);
    return parseDate(u, 0, u.length);
  }

  private static final int[] DAYS_IN_MONTH = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

  /** Days since 1970-01-01 of a proleptic Gregorian date (validated), without allocating. */
  static long epochDay(int y, int m, int d) {
    if (m < 1 || m > 12 || d < 1) {
      throw NOT_A_DATE;
    }
    boolean leap = (y & 3) == 0 && (y % 100 != 0 || y % 400 == 0);
    int max = m == 2 && leap ? 29 : DAYS_IN_MONTH[m - 1];
    if (d > max) {
      throw NOT_A_DATE;
    }
    // Howard Hinnant's days_from_civil
    long yy = m <= 2 ? y - 1 : y;
    long era = Math.floorDiv(yy, 400);
    long yoe = yy - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  }

  /**
   * {@code yyyy-mm-dd[T ]hh:mm[:ss[.f...]][Z|+hh:mm|-hh:mm]} as microseconds since the epoch (UTC for a
   * value without offset); throws DateTimeException when not a timestamp.
   */
  static long parseTimestampMicros(byte[] b, int off, int end) {
    off = trimStart(b, off, end);
    end = trimEnd(b, off, end);
    int n = end - off;
    if (n < 16 || b[off + 4] != '-' || b[off + 7] != '-' || (b[off + 10] != 'T' && b[off + 10] != ' ')
        || b[off + 13] != ':') {
      throw NOT_A_DATE;
    }
    int year = digits(b, off, 4);
    int month = digits(b, off + 5, 2);
    int day = digits(b, off + 8, 2);
    int hour = digits(b, off + 11, 2);
    int minute = digits(b, off + 14, 2);
    int i = off + 16;
    int second = 0;
    int micros = 0;
    if (i < end && b[i] == ':') {
      if (i + 3 > end) {
        throw NOT_A_DATE;
      }
      second = digits(b, i + 1, 2);
      i += 3;
      if (i < end && b[i] == '.') {
        i++;
        int start = i;
        int scale = 100_000;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
          micros += (b[i] - '0') * scale;
          scale /= 10;
          i++;
        }
        if (i == start || i - start > 9) {
          throw NOT_A_DATE;
        }
      }
    }
    int offsetSeconds = 0;
    if (i < end) {
      byte c = b[i];
      if (c == 'Z' && i + 1 == end) {
        i++;
      } else if ((c == '+' || c == '-') && i + 6 == end && b[i + 3] == ':') {
        int s = digits(b, i + 1, 2) * 3600 + digits(b, i + 4, 2) * 60;
        offsetSeconds = c == '-' ? -s : s;
        i = end;
      } else {
        throw NOT_A_DATE;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) {
      throw NOT_A_DATE;
    }
    long epochSecond = epochDay(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second
        - offsetSeconds;
    return Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), micros);
  }

  /** {@link #parseTimestampMicros(byte[], int, int)} of text (JSON strings). */
  static long parseTimestampMicros(char[] b, int off, int end) {
    byte[] u = new String(b, off, end - off).getBytes(StandardCharsets.UTF_8);
    return parseTimestampMicros(u, 0, u.length);
  }

  static boolean isDouble(String s) {
    byte[] u = s.getBytes(StandardCharsets.UTF_8);
    return isDouble(u, 0, u.length);
  }

  /**
   * Whether the text, trimmed as {@link String#trim} trims, is a float64 as import reads one:
   * {@code [-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?} or {@code [-+]?(inf|infinity|nan)} in any case. By hand
   * rather than by regular expression: inference asks it of every sampled cell.
   */
  /** The first byte of [off, end) after those {@link String#trim} trims (ASCII controls and space). */
  private static int blankStart(byte[] b, int off, int end) {
    while (off < end && (b[off] & 0xFF) <= ' ') {
      off++;
    }
    return off;
  }

  /** The end of [off, end) before the bytes {@link String#trim} trims. */
  private static int blankEnd(byte[] b, int off, int end) {
    while (end > off && (b[end - 1] & 0xFF) <= ' ') {
      end--;
    }
    return end;
  }

  static boolean isDouble(byte[] b, int off, int len) {
    int i = blankStart(b, off, off + len);
    int end = blankEnd(b, i, off + len);
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      i++;
    }
    int n = end - i;
    if (n == 3 && asciiIgnoreCase(b, i, "inf") || n == 8 && asciiIgnoreCase(b, i, "infinity")
        || n == 3 && asciiIgnoreCase(b, i, "nan")) {
      return true;
    }
    int intDigits = 0;
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      i++;
      intDigits++;
    }
    int fractionDigits = 0;
    if (i < end && b[i] == '.') {
      i++;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
        fractionDigits++;
      }
    }
    if (intDigits == 0 && fractionDigits == 0) {
      return false;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '-' || b[i] == '+')) {
        i++;
      }
      int expDigits = 0;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
        expDigits++;
      }
      if (expDigits == 0) {
        return false;
      }
    }
    return i == end;
  }

  private static final double[] POWERS_OF_TEN = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

  /**
   * A decimal number in plain notation ({@code [-+]?digits[.digits][eE[-+]?digits]}, trimmed as {@link
   * String#trim} trims) through Jackson's fast, correctly rounded parser (so the same double as {@link
   * Double#parseDouble}, without its big-integer arithmetic for long mantissas: JSON's float64 text is often
   * 17 digits); NaN for any other text, which the caller reads the slow way.
   */
  private static double parsePlainDecimal(byte[] b, int off, int len) {
    int i = blankStart(b, off, off + len);
    int end = blankEnd(b, i, off + len);
    int n = end - i;
    if (n == 0 || n > 400) {
      return Double.NaN;
    }
    char[] c = new char[n];
    for (int k = 0; k < n; k++) {
      byte x = b[i + k];
      if ((x < '0' || x > '9') && x != '.' && x != '-' && x != '+' && x != 'e' && x != 'E') {
        return Double.NaN;
      }
      c[k] = (char) x;
    }
    try {
      // Java's decimal syntax over these characters is exactly isDouble's
      return NumberInput.parseDouble(c, 0, n, true);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  static double parseDouble(byte[] b, int off, int len) {
    // Fast path (Clinger): [-]digits[.digits] with at most 15 significant digits is one exact division.
    int i = off;
    int end = off + len;
    boolean negative = false;
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      negative = b[i] == '-';
      i++;
    }
    long mantissa = 0;
    int digitCount = 0;
    int fraction = -1;
    boolean simple = i < end;
    for (; i < end; i++) {
      byte c = b[i];
      if (c >= '0' && c <= '9') {
        mantissa = mantissa * 10 + (c - '0');
        if (++digitCount > 15) {
          simple = false;
          break;
        }
        if (fraction >= 0) {
          fraction++;
        }
      } else if (c == '.' && fraction < 0) {
        fraction = 0;
      } else {
        simple = false;
        break;
      }
    }
    if (simple && digitCount > 0) {
      double v = fraction > 0 ? mantissa / POWERS_OF_TEN[fraction] : mantissa;
      return negative ? -v : v;
    }
    double plain = parsePlainDecimal(b, off, len);
    if (plain == plain) {
      return plain;
    }
    String s = new String(b, off, len, StandardCharsets.UTF_8).trim();
    String l = s.toLowerCase(java.util.Locale.ROOT);
    switch (l) {
      case "inf", "+inf", "infinity", "+infinity":
        return Double.POSITIVE_INFINITY;
      case "-inf", "-infinity":
        return Double.NEGATIVE_INFINITY;
      case "nan", "+nan", "-nan":
        return Double.NaN;
      default:
        char last = l.isEmpty() ? ' ' : l.charAt(l.length() - 1);
        if (last == 'd' || last == 'f' || l.contains("x")) {
          throw NOT_A_NUMBER;
        }
        return Double.parseDouble(s);
    }
  }

  // ------------------------------------------------------------------ writers

  static final class Bool extends ColumnWriter {
    private final BitVector v;

    Bool(BitVector v, String path) {
      super(v, path);
      this.v = v;
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      int value = bool(b, off, off + len);
      if (value < 0) {
        throw bad(b, off, len);
      }
      if (row < capacity) {
        v.set(row, value);
      } else {
        v.setSafe(row, value);
      }
    }

    @Override
    void jsonScalar(JsonParser p, JsonToken t, int row) throws IOException {
      if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
        v.setSafe(row, t == JsonToken.VALUE_TRUE ? 1 : 0);
      } else {
        super.jsonScalar(p, t, row);
      }
    }
  }

  static final class Int extends ColumnWriter {
    private final int width;

    Int(FieldVector v, String path) {
      super(v, path);
      this.width = ((ArrowType.Int) v.getField().getType()).getBitWidth();
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      long l;
      try {
        l = parseLong(b, off, off + len);
      } catch (NumberFormatException e) {
        throw bad(b, off, len);
      }
      if (!put(l, row)) {
        throw bad(b, off, len);
      }
    }

    /** Writes the value; false if it is out of the column's range. */
    private boolean put(long l, int row) {
      boolean room = row < capacity;
      switch (width) {
        case 64 -> {
          BigIntVector x = (BigIntVector) vector;
          if (room) {
            x.set(row, l);
          } else {
            x.setSafe(row, l);
          }
        }
        case 32 -> {
          if (l != (int) l) {
            return false;
          }
          ((IntVector) vector).setSafe(row, (int) l);
        }
        case 16 -> {
          if (l != (short) l) {
            return false;
          }
          ((SmallIntVector) vector).setSafe(row, (short) l);
        }
        default -> {
          if (l != (byte) l) {
            return false;
          }
          ((TinyIntVector) vector).setSafe(row, (byte) l);
        }
      }
      return true;
    }

    @Override
    void jsonScalar(JsonParser p, JsonToken t, int row) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT) {
        JsonParser.NumberType nt = p.getNumberType();
        if ((nt == JsonParser.NumberType.INT || nt == JsonParser.NumberType.LONG) && put(p.getLongValue(), row)) {
          return;
        }
        throw new BadCell(text(p));
      }
      if (t == JsonToken.VALUE_STRING) {
        super.jsonScalar(p, t, row);
        return;
      }
      throw new BadCell(text(p));
    }
  }

  static String text(JsonParser p) {
    try {
      return p.getText();
    } catch (IOException e) {
      return "?";
    }
  }

  static final class Floating extends ColumnWriter {
    private final boolean single;

    Floating(FieldVector v, String path) {
      super(v, path);
      this.single = v instanceof Float4Vector;
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      double d;
      try {
        d = parseDouble(b, off, len);
      } catch (NumberFormatException e) {
        throw bad(b, off, len);
      }
      put(d, row);
    }

    /**
     * An integer's JSON text ({@code -?digits}), read as Jackson reads it: a long converted to double (so
     * {@code -0} is 0.0), the decimal parse beyond long's range (the same correctly rounded double).
     */
    void integral(byte[] b, int off, int len, int row) {
      double d;
      try {
        d = len <= 19 ? parseLong(b, off, off + len) : parseDouble(b, off, len);
      } catch (NumberFormatException e) {
        d = parseDouble(b, off, len);
      }
      put(d, row);
    }

    private void put(double d, int row) {
      if (single) {
        ((Float4Vector) vector).setSafe(row, (float) d);
      } else if (row < capacity) {
        ((Float8Vector) vector).set(row, d);
      } else {
        ((Float8Vector) vector).setSafe(row, d);
      }
    }

    @Override
    void jsonScalar(JsonParser p, JsonToken t, int row) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
        put(p.getDoubleValue(), row);
      } else if (t == JsonToken.VALUE_STRING) {
        super.jsonScalar(p, t, row);
      } else {
        throw new BadCell(text(p));
      }
    }
  }

  static final class Decimal extends ColumnWriter {
    private final DecimalVector v;
    private final int scale;

    Decimal(DecimalVector v, String path) {
      super(v, path);
      this.v = v;
      this.scale = v.getScale();
    }

    /** As BigDecimal reads text (decimal digits of any script), trimmed of spaces and tabs. */
    @Override
    void bytes(byte[] b, int off, int len, int row) {
      try {
        put(new BigDecimal(trimmedText(b, off, len)), row);
      } catch (NumberFormatException | ArithmeticException | UnsupportedOperationException e) {
        throw bad(b, off, len);
      }
    }

    private void put(BigDecimal d, int row) {
      BigDecimal scaled = d.setScale(scale, RoundingMode.UNNECESSARY);
      if (scaled.precision() > v.getPrecision()) {
        throw new ArithmeticException();
      }
      v.setSafe(row, scaled);
    }

    @Override
    void jsonScalar(JsonParser p, JsonToken t, int row) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
        try {
          put(p.getDecimalValue(), row);
        } catch (ArithmeticException e) {
          throw new BadCell(text(p));
        }
      } else if (t == JsonToken.VALUE_STRING) {
        super.jsonScalar(p, t, row);
      } else {
        throw new BadCell(text(p));
      }
    }
  }

  static final class Date extends ColumnWriter {
    private final DateDayVector v;

    Date(DateDayVector v, String path) {
      super(v, path);
      this.v = v;
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      int day;
      try {
        day = parseDate(b, off, off + len);
      } catch (DateTimeException e) {
        throw bad(b, off, len);
      }
      if (row < capacity) {
        v.set(row, day);
      } else {
        v.setSafe(row, day);
      }
    }
  }

  static final class Timestamp extends ColumnWriter {
    private final TimeStampVector v;
    private final TimeUnit unit;

    Timestamp(TimeStampVector v, String path) {
      super(v, path);
      this.v = v;
      this.unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      long micros;
      try {
        micros = parseTimestampMicros(b, off, off + len);
      } catch (DateTimeException | ArithmeticException e) {
        micros = fallback(b, off, len);
      }
      long value = switch (unit) {
        case SECOND -> Math.floorDiv(micros, 1_000_000L);
        case MILLISECOND -> Math.floorDiv(micros, 1000L);
        case MICROSECOND -> micros;
        case NANOSECOND -> Math.multiplyExact(micros, 1000L);
      };
      if (row < capacity) {
        v.set(row, value);
      } else {
        v.setSafe(row, value);
      }
    }

    /** Other ISO-8601 spellings (offsets with seconds, fractions past micros) through java.time. */
    private static long fallback(byte[] b, int off, int len) {
      String t = new String(b, off, len, StandardCharsets.UTF_8).trim().replace(' ', 'T');
      try {
        java.time.Instant i = t.endsWith("Z") || t.matches(".*[+-]\\d{2}:\\d{2}(:\\d{2})?$")
            ? OffsetDateTime.parse(t).toInstant() : LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
      } catch (DateTimeException | ArithmeticException e) {
        throw bad(b, off, len);
      }
    }
  }

  /** UTF-8 text. In JSON, a non-string value (number, object, array) is stored as its JSON text. */
  static final class Text extends ColumnWriter {
    private final VarCharVector v;
    /** Bytes the data buffer holds, and has been given since {@link #reserve} (nulls add none). */
    private long dataCapacity;
    private long used;
    private ByteArrayOutputStream json;
    private JsonGenerator generator;

    Text(VarCharVector v, String path) {
      super(v, path);
      this.v = v;
    }

    @Override
    boolean quotedNullIsNull() {
      return false;
    }

    @Override
    void reserve(int rows) {
      dataCapacity = reserveOffsets(v, rows);
      used = 0;
    }

    /** The bytes as they are, once validated (not UTF-8: a bad cell). */
    @Override
    void bytes(byte[] b, int off, int len, int row) {
      if (!Utf8.valid(b, off, off + len)) {
        throw bad(b, off, len);
      }
      used += len;
      if (row < capacity && used <= dataCapacity) {
        v.set(row, b, off, len);
      } else {
        v.setSafe(row, b, off, len);
        dataCapacity = v.getDataBuffer().capacity();
        capacity = v.getValueCapacity();
      }
    }

    /** Encoded text needs no validation. */
    @Override
    void text(char[] b, int off, int len, int row) {
      int n = utf8(b, off, len); // first: it may replace scratch
      v.setSafe(row, scratch, 0, n);
    }

    @Override
    void json(JsonParser p, int row) throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
        if (json == null) {
          json = new ByteArrayOutputStream();
          generator = new JsonFactory().createGenerator(json);
        }
        json.reset();
        generator.copyCurrentStructure(p);
        generator.flush();
        byte[] bytes = json.toByteArray();
        v.setSafe(row, bytes, 0, bytes.length);
        return;
      }
      super.json(p, row);
    }
  }

  /** Binary cells are hexadecimal digits (as scan and export print them). */
  static final class Binary extends ColumnWriter {
    private final VarBinaryVector v;

    Binary(VarBinaryVector v, String path) {
      super(v, path);
      this.v = v;
    }

    @Override
    boolean quotedNullIsNull() {
      return false;
    }

    /** Hexadecimal digits as Character.digit reads them, trimmed of spaces and tabs. */
    @Override
    void bytes(byte[] b, int off, int len, int row) {
      char[] c = trimmedText(b, off, len);
      if ((c.length & 1) != 0) {
        throw bad(b, off, len);
      }
      byte[] out = new byte[c.length / 2];
      for (int i = 0; i < out.length; i++) {
        int hi = Character.digit(c[2 * i], 16);
        int lo = Character.digit(c[2 * i + 1], 16);
        if (hi < 0 || lo < 0) {
          throw bad(b, off, len);
        }
        out[i] = (byte) (hi << 4 | lo);
      }
      v.setSafe(row, out);
    }
  }

  /** A JSON object into a struct: fields by name, missing ones null, unknown ones an error. */
  static final class Struct extends ColumnWriter {
    private final StructVector v;
    final Fields fields;

    Struct(StructVector v, String path) {
      super(v, path);
      this.v = v;
      List<FieldVector> children = v.getChildrenFromFields();
      this.fields = new Fields(children, path + ".");
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      throw bad(b, off, len);
    }

    @Override
    void nul(int row) {
      v.setNull(row);
      fields.nulls(row);
    }

    @Override
    void json(JsonParser p, int row) throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_NULL) {
        nul(row);
        return;
      }
      if (t != JsonToken.START_OBJECT) {
        throw new BadCell(t == JsonToken.START_ARRAY ? "an array" : text(p));
      }
      define(row);
      fields.object(p, row);
    }

    /** Marks the row's struct as present (its fields are written next). */
    void define(int row) {
      v.setIndexDefined(row);
    }
  }

  /** A JSON array into a list. */
  static final class Items extends ColumnWriter {
    final ListVector v;
    final ColumnWriter item;

    Items(ListVector v, String path) {
      super(v, path);
      this.v = v;
      this.item = of(v.getDataVector(), path + "[]");
    }

    /**
     * Reserves the items too: as many as the rows, or as the item vector holds already (it keeps its buffers
     * from batch to batch), so that the item writes skip the capacity checks as the column's own do.
     */
    @Override
    void reserve(int rows) {
      int items = Math.max(rows, v.getDataVector().getValueCapacity());
      item.reserve(items);
      if (item instanceof Struct s) {
        s.fields.reserve(items);
      }
    }

    /**
     * Starts row {@code row}'s list, rows being written in order: what {@code ListVector.startNewValue} does
     * (returns the index of its first item), in fewer steps when row - 1 was the last row written and the
     * buffers have room, so that there are no holes to fill and nothing to grow.
     */
    int start(int row) {
      ArrowBuf offsets = v.getOffsetBuffer();
      if (row == 0 || v.getLastSet() != row - 1 || (long) row + 2 > offsets.capacity() / ListVector.OFFSET_WIDTH
          || row >= v.getValidityBuffer().capacity() * 8) {
        return v.startNewValue(row);
      }
      int first = offsets.getInt((long) row * ListVector.OFFSET_WIDTH);
      offsets.setInt((long) (row + 1) * ListVector.OFFSET_WIDTH, first);
      BitVectorHelper.setBit(v.getValidityBuffer(), row);
      v.setLastSet(row);
      return first;
    }

    @Override
    void bytes(byte[] b, int off, int len, int row) {
      throw bad(b, off, len);
    }

    @Override
    void json(JsonParser p, int row) throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_NULL) {
        nul(row);
        return;
      }
      if (t != JsonToken.START_ARRAY) {
        throw new BadCell(t == JsonToken.START_OBJECT ? "an object" : text(p));
      }
      int start = start(row);
      int n = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        try {
          item.json(p, start + n);
        } catch (BadCell e) {
          throw new CellError(item, e.value);
        }
        n++;
      }
      v.endValue(row, n);
    }
  }

  /** The fields of a record or struct, by name. */
  static final class Fields {
    final ColumnWriter[] writers;
    /** The writers' field names in UTF-8 (what {@link #find} compares a JSON name's bytes with). */
    private final byte[][] names;
    private final Map<String, Integer> index = new HashMap<>();
    private final int[] seen;
    private int stamp;
    /** Set by {@link #object} when a field is not known: its name. */
    final String prefix;

    Fields(List<FieldVector> vectors, String prefix) {
      this.prefix = prefix;
      writers = new ColumnWriter[vectors.size()];
      names = new byte[writers.length][];
      for (int i = 0; i < writers.length; i++) {
        FieldVector fv = vectors.get(i);
        writers[i] = of(fv, prefix + fv.getName());
        names[i] = utf8(fv.getName());
        index.put(fv.getName(), i);
      }
      seen = new int[writers.length];
    }

    void nulls(int row) {
      for (ColumnWriter w : writers) {
        w.nul(row);
      }
    }

    /** {@link ColumnWriter#reserve} of the writers of these fields and of their structs' fields. */
    void reserve(int rows) {
      for (ColumnWriter w : writers) {
        w.reserve(rows);
        if (w instanceof Struct s) {
          s.fields.reserve(rows);
        }
      }
    }

    /**
     * The index of the field whose UTF-8 name is {@code len} bytes of {@code b} from {@code off} (-1 if
     * none), tried first at {@code expected}: objects tend to list their fields in one order.
     */
    int find(byte[] b, int off, int len, int expected) {
      if (expected < names.length && same(names[expected], b, off, len)) {
        return expected;
      }
      for (int i = 0; i < names.length; i++) {
        if (same(names[i], b, off, len)) {
          return i;
        }
      }
      return -1;
    }

    /** Whether the name is those bytes (a plain loop: names are short, Arrays.equals' set-up costs more). */
    private static boolean same(byte[] name, byte[] b, int off, int len) {
      if (name.length != len) {
        return false;
      }
      for (int i = 0; i < len; i++) {
        if (name[i] != b[off + i]) {
          return false;
        }
      }
      return true;
    }

    /** Starts an object: returns the stamp that {@link #see} and {@link #end} take. */
    int begin() {
      return ++stamp;
    }

    /** Records that the object of stamp {@code s} has field {@code i}; false if it had it already. */
    boolean see(int i, int s) {
      if (seen[i] == s) {
        return false;
      }
      seen[i] = s;
      return true;
    }

    /** Ends the object of stamp {@code s}: the fields it did not have are null. */
    void end(int s, int row) {
      for (int i = 0; i < writers.length; i++) {
        if (seen[i] != s) {
          writers[i].nul(row);
        }
      }
    }

    /** Reads the object the parser is on (START_OBJECT current) up to its END_OBJECT. */
    void object(JsonParser p, int row) throws IOException {
      int s = begin();
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        Integer i = index.get(name);
        p.nextToken();
        if (i == null) {
          throw new UnknownField(prefix + name);
        }
        ColumnWriter w = writers[i];
        try {
          w.json(p, row);
        } catch (BadCell e) {
          throw new CellError(w, e.value);
        }
        seen[i] = s;
      }
      if (t != JsonToken.END_OBJECT) {
        throw new IllegalStateException("unexpected " + t);
      }
      end(s, row);
    }
  }

  /** A JSON field the schema does not have. */
  static final class UnknownField extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String path;

    UnknownField(String path) {
      super(path, null, false, false);
      this.path = path;
    }
  }

  /** A bad cell with the (innermost) column it was written to. */
  static final class CellError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient ColumnWriter writer;
    final String value;

    CellError(ColumnWriter writer, String value) {
      super(value, null, false, false);
      this.writer = writer;
      this.value = value;
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
