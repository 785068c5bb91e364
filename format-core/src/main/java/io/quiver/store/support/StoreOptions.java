package io.quiver.store.support;

import io.quiver.exceptions.InvalidArgumentException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The option map an adapter was opened with ({@code ObjectStoreProvider.open(uri, options)}), read with
 * types and bounds. Keys the adapter does not ask for are ignored, so one map can serve several adapters;
 * a blank value counts as absent. Every refusal is an {@link InvalidArgumentException} in one style,
 * naming the option, what it must be and what was found: {@code option 's3.max-retries' must be a whole
 * number from 0 to 100, found '-1'}. Values of secret options are never echoed: read them with {@link
 * #secret}, and refuse them with {@link #invalid(String, String)}, which leaves the value out.
 */
public final class StoreOptions {
  private final Map<String, String> options;

  private StoreOptions(Map<String, String> options) {
    this.options = options;
  }

  /** The options; {@code null} is an empty map. */
  public static StoreOptions of(Map<String, String> options) {
    return new StoreOptions(options == null ? Map.of() : options);
  }

  /** The refusal of a value, in the one message style. */
  public static InvalidArgumentException invalid(String key, String mustBe, String found) {
    return new InvalidArgumentException("option '" + key + "' must be " + mustBe + ", found '" + found + "'");
  }

  /** The refusal of a value that must not be echoed (it may hold a secret). */
  public static InvalidArgumentException invalid(String key, String mustBe) {
    return new InvalidArgumentException("option '" + key + "' must be " + mustBe + " (the value is not shown)");
  }

  /** Whether the option is given (and not blank). */
  public boolean has(String key) {
    return string(key).isPresent();
  }

  /** The trimmed value, or empty when absent or blank. */
  public Optional<String> string(String key) {
    String v = options.get(key);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  /** The value of the first of {@code keys} that is given (an option and its aliases). */
  public Optional<String> firstOf(String... keys) {
    for (String key : keys) {
      Optional<String> v = string(key);
      if (v.isPresent()) {
        return v;
      }
    }
    return Optional.empty();
  }

  /** A secret's value, untrimmed apart from surrounding blanks; for credentials. Never put it in a message. */
  public Optional<String> secret(String key) {
    return string(key);
  }

  /** {@code true} or {@code false}, in any case. */
  public boolean bool(String key, boolean fallback) {
    Optional<String> v = string(key);
    if (v.isEmpty()) {
      return fallback;
    }
    return switch (v.get().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid(key, "true or false", v.get());
    };
  }

  /** A whole number from {@code min} to {@code max}. */
  public long number(String key, long fallback, long min, long max) {
    return optionalNumber(key, min, max).orElse(fallback);
  }

  /** A whole number from {@code min} to {@code max} that fits an int. */
  public int integer(String key, int fallback, int min, int max) {
    return (int) number(key, fallback, min, max);
  }

  /** A whole number from {@code min} to {@code max}, or empty when absent. */
  public Optional<Long> optionalNumber(String key, long min, long max) {
    Optional<String> v = string(key);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    long n;
    try {
      n = Long.parseLong(v.get());
    } catch (NumberFormatException e) {
      throw invalid(key, range(min, max), v.get());
    }
    if (n < min || n > max) {
      throw invalid(key, range(min, max), v.get());
    }
    return Optional.of(n);
  }

  /** Milliseconds from {@code min} to {@code max}, as a duration. */
  public Duration millis(String key, long fallback, long min, long max) {
    return Duration.ofMillis(number(key, fallback, min, max));
  }

  /** Milliseconds from {@code min} to {@code max}, or empty when absent. */
  public Optional<Duration> optionalMillis(String key, long min, long max) {
    return optionalNumber(key, min, max).map(Duration::ofMillis);
  }

  /**
   * One of a fixed set of words, in any case; {@code choices} maps each accepted spelling to its meaning
   * (in the order the message lists them).
   */
  public <T> T choice(String key, T fallback, Map<String, T> choices, List<String> listed) {
    Optional<String> v = string(key);
    if (v.isEmpty()) {
      return fallback;
    }
    T chosen = choices.get(v.get().toLowerCase(Locale.ROOT));
    if (chosen == null) {
      throw invalid(key, "one of " + String.join(", ", listed), v.get());
    }
    return chosen;
  }

  private static String range(long min, long max) {
    return "a whole number from " + min + " to " + max;
  }
}
