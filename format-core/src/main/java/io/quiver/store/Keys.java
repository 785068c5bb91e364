package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;
import java.util.Comparator;

/** Validation of object keys: relative paths that cannot escape the store's root. */
public final class Keys {
  private Keys() {}

  /**
   * Listing order of keys: ascending by Unicode code point, which is the UTF-8 byte order object stores
   * list in. {@link String#compareTo} differs from it for characters outside the Basic Multilingual
   * Plane, so stores must sort with this.
   */
  public static final Comparator<String> ORDER = Keys::compare;

  /** Compares two keys in {@link #ORDER}. */
  public static int compare(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char ca = a.charAt(i);
      char cb = b.charAt(i);
      if (ca != cb) {
        // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF: they must sort after every
        // other char, including U+E000..U+FFFF.
        boolean sa = Character.isSurrogate(ca);
        boolean sb = Character.isSurrogate(cb);
        if (sa != sb) {
          return sa ? 1 : -1;
        }
        return ca - cb;
      }
    }
    return a.length() - b.length();
  }

  /**
   * Returns the key if it is a safe relative key, or throws.
   *
   * @throws InvalidArgumentException if the key is empty, absolute, has a scheme, contains a backslash,
   *     a NUL, or an empty, {@code .} or {@code ..} segment
   */
  public static String check(String key) {
    String problem = problem(key);
    if (problem != null) {
      throw new InvalidArgumentException(
          "invalid object key '" + key + "': " + problem + "; keys are relative paths inside the table root");
    }
    return key;
  }

  /**
   * Returns the list prefix if some valid key can start with it (the empty prefix, {@code "a/"}, {@code
   * "a/b"}, {@code ".."}), or throws: a prefix such as {@code "../"}, {@code "/"} or {@code "a//"} can match
   * no key, and refusing it keeps every store from reaching outside its root.
   *
   * @throws InvalidArgumentException if the prefix is null or no valid key starts with it
   */
  public static String checkPrefix(String prefix) {
    if (prefix == null) {
      throw new InvalidArgumentException("the list prefix is null; use \"\" for every key");
    }
    // A prefix of a valid key is exactly a string that stays valid when a plain character follows it.
    String problem = prefix.isEmpty() ? null : problem(prefix + "x");
    if (problem != null) {
      throw new InvalidArgumentException(
          "invalid list prefix '" + prefix + "': no valid key starts with it (" + problem
              + "); prefixes are relative paths inside the table root");
    }
    return prefix;
  }

  /** True when {@link #check} would accept the key. */
  public static boolean isValid(String key) {
    return problem(key) == null;
  }

  private static String problem(String key) {
    if (key == null) {
      return "it is null";
    }
    if (key.isEmpty()) {
      return "it is empty";
    }
    if (key.startsWith("/")) {
      return "it is absolute";
    }
    if (key.indexOf('\\') >= 0) {
      return "it contains a backslash";
    }
    if (key.indexOf('\0') >= 0) {
      return "it contains a NUL character";
    }
    int colon = key.indexOf(':');
    int slash = key.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) {
      return "it looks like a URI with a scheme";
    }
    // Segment by segment without splitting: every data-file path of a loaded segment passes here.
    for (int start = 0; start <= key.length(); ) {
      int end = key.indexOf('/', start);
      if (end < 0) {
        end = key.length();
      }
      int n = end - start;
      if (n == 0) {
        return "it has an empty path segment";
      }
      if (key.charAt(start) == '.' && (n == 1 || (n == 2 && key.charAt(start + 1) == '.'))) {
        return "it has a '" + key.substring(start, end) + "' segment";
      }
      start = end + 1;
    }
    return null;
  }
}
