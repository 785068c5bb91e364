package io.quiver.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A file being imported, read once from start to end: its schema (inferred from a sample, given by
 * {@code --type}, or the table's), then batches written straight into the vectors of a root the caller
 * owns and reuses. Memory is one batch, whatever the file's size.
 */
interface ImportSource extends AutoCloseable {
  /** The Arrow schema rows are written in. */
  Schema schema();

  /** Binds the source to the root (created from {@link #schema()}) it fills. */
  void bind(VectorSchemaRoot root);

  /** Refills the bound root with at most {@code maxRows} rows; returns how many (0 at the end of the file). */
  int fill(int maxRows);

  /** Bytes of the file read so far. */
  long bytesRead();

  @Override
  void close();

  /** How CSV and JSON files are read (import's and merge's options). */
  record Settings(char delimiter, char quote, String nullString, boolean header, int sampleRows,
      Map<String, String> types) {

    /**
     * The settings of the command-line options: {@code delimiter} as given (null: {@code ,}, or tab for a
     * {@code .tsv} {@code fileName}; {@code tab} or {@code \t} for tab).
     *
     * @throws UserException for a delimiter of more than one character, or a delimiter or quote that is not
     *     ASCII, is a line break, or is the other one
     */
    static Settings of(String delimiter, char quote, String nullString, boolean noHeader, int sampleRows,
        Map<String, String> types, String fileName) {
      char d;
      if (delimiter == null) {
        d = fileName.endsWith(".tsv") ? '\t' : ',';
      } else if (delimiter.equals("\\t") || delimiter.equalsIgnoreCase("tab")) {
        d = '\t';
      } else if (delimiter.length() == 1) {
        d = delimiter.charAt(0);
      } else {
        throw new UserException("--delimiter must be one character (or tab), got '" + delimiter + "'");
      }
      if (d == quote || d == '\n' || d == '\r') {
        throw new UserException("--delimiter cannot be the quote character or a line break");
      }
      if (d > 0x7F || quote > 0x7F || quote == '\n' || quote == '\r') {
        throw new UserException("--delimiter and --quote must be ASCII characters other than a line break, got '"
            + d + "' and '" + quote + "'");
      }
      return new Settings(d, quote, nullString, !noHeader, sampleRows, types);
    }
  }

  // ------------------------------------------------------------------ helpers

  /** An input stream that counts the bytes read through it. */
  final class Counting extends FilterInputStream {
    private volatile long count;

    Counting(InputStream in) {
      super(in);
    }

    long count() {
      return count;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long s = super.skip(n);
      count += s;
      return s;
    }
  }

  /** Where a file's first invalid UTF-8 sequence is: its 1-based line and byte offset, or null if none. */
  static long[] firstInvalidUtf8(Path f) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try (InputStream in = Files.newInputStream(f)) {
      ByteBuffer bytes = ByteBuffer.allocate(1 << 16);
      CharBuffer chars = CharBuffer.allocate(1 << 16);
      long consumed = 0;
      long line = 1;
      boolean eof = false;
      while (true) {
        int n = eof ? -1 : in.read(bytes.array(), bytes.position(), bytes.remaining());
        if (n < 0) {
          eof = true;
        } else {
          bytes.position(bytes.position() + n);
        }
        bytes.flip();
        int before = bytes.position();
        CoderResult r = decoder.decode(bytes, chars, eof);
        for (int i = before; i < bytes.position(); i++) {
          if (bytes.get(i) == '\n') {
            line++;
          }
        }
        consumed += bytes.position() - before;
        if (r.isError()) {
          return new long[] {line, consumed, bytes.get(bytes.position()) & 0xFF};
        }
        chars.clear();
        bytes.compact();
        if (eof && bytes.position() == 0) {
          return null;
        }
        if (eof) {
          // decode(..., true) reported no error but left bytes: a truncated sequence at the end
          return new long[] {line, consumed, bytes.get(0) & 0xFF};
        }
      }
    } catch (IOException e) {
      return null;
    }
  }

  /** The one-line error for a file that is not UTF-8. */
  static UserException notUtf8(Path f) {
    long[] where = firstInvalidUtf8(f);
    if (where == null) {
      return new UserException(f + ": invalid UTF-8; the file must be UTF-8 encoded");
    }
    return new UserException(f + " line " + where[0] + ": invalid UTF-8 (byte 0x"
        + String.format("%02X", where[2]) + " at offset " + where[1] + "); the file must be UTF-8 encoded");
  }

  /** Whether the throwable or one of its causes is a character decoding error. */
  static boolean isDecodingError(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.nio.charset.CharacterCodingException) {
        return true;
      }
    }
    return false;
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return String.valueOf(t.getMessage()).replace('\n', ' ');
  }
}
