package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens an {@link ObjectStore} from a URI or a plain path by choosing the {@link ObjectStoreProvider}
 * registered for its scheme. Adapters are discovered with {@link ServiceLoader}, so adding an adapter
 * module to the classpath is all it takes to open its URIs.
 *
 * <p>Registries are immutable: {@link #register} returns a new one, so a test can add a provider
 * without affecting anyone else. Thread-safe.
 */
public final class ObjectStores {
  /** A URI scheme (RFC 3986) followed by ':'; one letter is a Windows drive, not a scheme. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.\\-]*):");

  /** Which module provides each well-known scheme, for the "unknown scheme" message. */
  private static final Map<String, String> MODULES =
      Map.of(
          "s3", "format-io-s3",
          "gs", "format-io-gcs",
          "az", "format-io-azure",
          "abfs", "format-io-azure",
          "abfss", "format-io-azure",
          "file", "format-io-local");

  private static volatile ObjectStores defaultRegistry;

  private final Map<String, ObjectStoreProvider> providers;

  private ObjectStores(Map<String, ObjectStoreProvider> providers) {
    this.providers = Collections.unmodifiableMap(new TreeMap<>(providers));
  }

  /** A registry with no providers, to build on with {@link #register}. */
  public static ObjectStores empty() {
    return new ObjectStores(Map.of());
  }

  /**
   * The providers visible to the context class loader (or this class's loader if there is none) when
   * first called. Loaded once, so provider state such as {@link MemoryObjectStoreProvider}'s named
   * stores is shared by every caller in the JVM.
   *
   * @throws java.util.ServiceConfigurationError if a provider cannot be loaded or two different
   *     providers claim the same scheme (a classpath mistake that would otherwise pick one at random)
   */
  public static ObjectStores defaultRegistry() {
    ObjectStores registry = defaultRegistry;
    if (registry == null) {
      synchronized (ObjectStores.class) {
        registry = defaultRegistry;
        if (registry == null) {
          registry = load();
          defaultRegistry = registry;
        }
      }
    }
    return registry;
  }

  private static ObjectStores load() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = ObjectStores.class.getClassLoader();
    }
    Map<String, ObjectStoreProvider> found = new LinkedHashMap<>();
    for (ObjectStoreProvider provider : ServiceLoader.load(ObjectStoreProvider.class, loader)) {
      for (String scheme : provider.schemes()) {
        String key = scheme.toLowerCase(Locale.ROOT);
        ObjectStoreProvider previous = found.putIfAbsent(key, provider);
        if (previous != null && previous.getClass() != provider.getClass()) {
          throw new java.util.ServiceConfigurationError(
              "two object store providers claim scheme '" + key + "': " + previous.getClass().getName()
                  + " and " + provider.getClass().getName() + "; remove one from the classpath");
        }
      }
    }
    return new ObjectStores(found);
  }

  /** A registry with {@code provider} added; it replaces any provider of the same schemes. */
  public ObjectStores register(ObjectStoreProvider provider) {
    Map<String, ObjectStoreProvider> copy = new TreeMap<>(providers);
    for (String scheme : provider.schemes()) {
      copy.put(scheme.toLowerCase(Locale.ROOT), provider);
    }
    return new ObjectStores(copy);
  }

  /** The lower-case schemes this registry can open, sorted. */
  public Set<String> schemes() {
    return Collections.unmodifiableSet(new TreeSet<>(providers.keySet()));
  }

  /**
   * Opens the store at a URI such as {@code s3://bucket/table} or at a local path. A string without a
   * scheme ({@code /tmp/t}, {@code relative/dir}, {@code C:\t}) is a local path and opens as an absolute
   * {@code file} URI.
   *
   * @param options adapter settings passed to the provider; may be null
   * @throws InvalidArgumentException if the string is not a URI or path, or no provider handles its
   *     scheme (the message says which module to add)
   */
  public ObjectStore open(String uriOrPath, Map<String, String> options) {
    URI uri = toUri(uriOrPath);
    String scheme = uri.getScheme();
    ObjectStoreProvider provider = providers.get(scheme);
    if (provider == null) {
      String module = MODULES.get(scheme);
      throw new InvalidArgumentException(
          "no object store provider for scheme '" + scheme + "'; available schemes: " + schemes() + "; "
              + (module != null
                  ? "add the io.quiver:" + module + " module to the classpath"
                  : "add the adapter module that provides it to the classpath"));
    }
    return provider.open(uri, options == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(options)));
  }

  /** The URI {@link #open} resolves a string to, with a lower-case scheme. */
  static URI toUri(String uriOrPath) {
    if (uriOrPath == null || uriOrPath.isBlank()) {
      throw new InvalidArgumentException("store location is empty; give a URI such as s3://bucket/table or a path");
    }
    Matcher m = SCHEME.matcher(uriOrPath);
    if (!m.find() || m.group(1).length() == 1) {
      try {
        return Path.of(uriOrPath).toAbsolutePath().normalize().toUri();
      } catch (InvalidPathException e) {
        throw new InvalidArgumentException("'" + uriOrPath + "' is not a valid local path: " + e.getMessage());
      }
    }
    String scheme = m.group(1).toLowerCase(Locale.ROOT);
    try {
      return new URI(scheme + uriOrPath.substring(m.group(1).length()));
    } catch (URISyntaxException e) {
      throw new InvalidArgumentException("'" + uriOrPath + "' is not a valid URI: " + e.getMessage());
    }
  }
}
