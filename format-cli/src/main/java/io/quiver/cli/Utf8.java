package io.quiver.cli;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * UTF-8 without a decoder: strict validation of byte ranges (as a reporting {@link
 * java.nio.charset.CharsetDecoder} judges them: no overlong forms, no surrogates, nothing above U+10FFFF, no
 * truncated sequence) with an ASCII fast path eight bytes at a time, and encoding of Java text into a
 * caller's buffer.
 */
final class Utf8 {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8() {}

  /** Whether bytes {@code [off, end)} of {@code b} are well-formed UTF-8. */
  static boolean valid(byte[] b, int off, int end) {
    int i = off;
    while (i + 8 <= end) {
      if (((long) LONGS.get(b, i) & HIGH_BITS) != 0) {
        break;
      }
      i += 8;
    }
    while (i < end) {
      int c = b[i];
      if (c >= 0) {
        i++;
        continue;
      }
      c &= 0xFF;
      int n;
      int min2 = 0x80;
      int max2 = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0) {
          min2 = 0xA0; // overlong below U+0800
        } else if (c == 0xED) {
          max2 = 0x9F; // surrogates U+D800..U+DFFF
        }
      } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0) {
          min2 = 0x90; // overlong below U+10000
        } else if (c == 0xF4) {
          max2 = 0x8F; // above U+10FFFF
        }
      } else {
        return false; // a continuation byte, an overlong lead (C0, C1) or F5..FF
      }
      if (i + n >= end) {
        return false; // truncated
      }
      int second = b[i + 1] & 0xFF;
      if (second < min2 || second > max2) {
        return false;
      }
      for (int k = 2; k <= n; k++) {
        if ((b[i + k] & 0xC0) != 0x80) {
          return false;
        }
      }
      i += n + 1;
    }
    return true;
  }

  /**
   * Encodes {@code len} characters of {@code src} from {@code off} as UTF-8 into {@code dst} from 0, which
   * must hold {@code 3 * len} bytes; returns the byte count, or -1 for a lone surrogate (not Unicode text).
   */
  static int encode(char[] src, int off, int len, byte[] dst) {
    int n = 0;
    int i = off;
    int end = off + len;
    while (i < end) {
      char c = src[i];
      if (c < 0x80) {
        dst[n++] = (byte) c;
        i++;
      } else if (c < 0x800) {
        dst[n++] = (byte) (0xC0 | (c >> 6));
        dst[n++] = (byte) (0x80 | (c & 0x3F));
        i++;
      } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(src[i + 1])) {
        int cp = Character.toCodePoint(c, src[i + 1]);
        dst[n++] = (byte) (0xF0 | (cp >> 18));
        dst[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        dst[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        dst[n++] = (byte) (0x80 | (cp & 0x3F));
        i += 2;
      } else if (Character.isSurrogate(c)) {
        return -1;
      } else {
        dst[n++] = (byte) (0xE0 | (c >> 12));
        dst[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        dst[n++] = (byte) (0x80 | (c & 0x3F));
        i++;
      }
    }
    return n;
  }
}
