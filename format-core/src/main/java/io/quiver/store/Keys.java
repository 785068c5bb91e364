package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;

/** Validation of object keys: relative paths that cannot escape the store's root. */
public final class Keys {
  private Keys() {}

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

  /** True when {@link #check} would accept the key. */
  public static boolean isValid(String key) {
    return problem(key) == null;
  }

  private static String problem(String key) {
    if (key == null || key.isEmpty()) {
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
    for (String segment : key.split("/", -1)) {
      if (segment.isEmpty()) {
        return "it has an empty path segment";
      }
      if (segment.equals(".") || segment.equals("..")) {
        return "it has a '" + segment + "' segment";
      }
    }
    return null;
  }
}
