package io.quiver.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Strict UTF-8 text of a byte stream, decoded on a thread of its own a few blocks ahead of the reader, so
 * that decoding and CSV parsing run on two cores. What it reads is what an {@link java.io.InputStreamReader}
 * with a reporting decoder reads, in the same order: the characters before invalid input, then the {@link
 * java.nio.charset.CharacterCodingException} (or the stream's IOException). Memory is a fixed number of
 * blocks. {@link #close} stops the decoding thread, waits for it, and closes the stream.
 */
final class DecodingReader extends Reader {
  private static final int BLOCK = 1 << 16;
  private static final int BLOCKS = 4;

  /** Decoded characters, the end ({@code length < 0}) or a failure. */
  private record Block(char[] chars, int length, IOException failure) {}

  private final InputStream in;
  private final BlockingQueue<Block> full = new ArrayBlockingQueue<>(BLOCKS + 1);
  private final BlockingQueue<char[]> empty = new ArrayBlockingQueue<>(BLOCKS);
  private final Thread decoder;
  private volatile boolean closed;
  private Block current;
  private int pos;
  private boolean done;
  private IOException failed;

  DecodingReader(InputStream in, String name) {
    this.in = in;
    for (int i = 0; i < BLOCKS; i++) {
      empty.add(new char[BLOCK]);
    }
    decoder = new Thread(this::decode, "quiver-import-decode " + name);
    decoder.setDaemon(true);
    decoder.start();
  }

  /** The decoding thread. */
  private void decode() {
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer bytes = ByteBuffer.allocate(BLOCK);
    try {
      boolean eof = false;
      while (!closed) {
        CharBuffer chars = CharBuffer.wrap(empty.take());
        do {
          if (!eof) {
            int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
            if (n < 0) {
              eof = true;
            } else {
              bytes.position(bytes.position() + n);
            }
          }
          bytes.flip();
          CoderResult r = utf8.decode(bytes, chars, eof);
          bytes.compact();
          if (r.isError()) {
            full.put(new Block(chars.array(), chars.position(), null));
            r.throwException();
          }
        } while (chars.position() == 0 && !(eof && bytes.position() == 0));
        if (chars.position() > 0) {
          full.put(new Block(chars.array(), chars.position(), null));
        } else {
          empty.add(chars.array());
        }
        if (eof && bytes.position() == 0) {
          full.put(new Block(null, -1, null));
          return;
        }
      }
    } catch (InterruptedException e) {
      // closed
    } catch (IOException e) {
      if (!closed) {
        full.offer(new Block(null, -1, e));
      }
    }
  }

  @Override
  public int read(char[] buf, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (current == null || pos == current.length()) {
      if (current != null) {
        empty.add(current.chars());
        current = null;
      }
      if (failed != null) {
        throw failed;
      }
      if (done || closed) {
        return -1;
      }
      Block next;
      try {
        next = full.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading");
      }
      if (next.failure() != null) {
        failed = next.failure();
        throw failed;
      }
      if (next.length() < 0) {
        done = true;
        return -1;
      }
      current = next;
      pos = 0;
    }
    int n = Math.min(len, current.length() - pos);
    System.arraycopy(current.chars(), pos, buf, off, n);
    pos += n;
    return n;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    decoder.interrupt();
    boolean interrupted = false;
    while (true) {
      try {
        decoder.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    in.close();
  }
}
