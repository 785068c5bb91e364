package io.quiver.internal.table;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.TagAlreadyExistsException;
import io.quiver.exceptions.TagNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.codec.RefCodec.TagRef;
import io.quiver.internal.codec.RefCodec;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.time.Clock;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Tags of a table, stored at {@code _refs/tags/{name}.tag}: created once with a conditional put, never
 * moved. The engine behind {@link io.quiver.dataset.Tags}; cleanup reads {@link #list()} to keep tagged
 * versions.
 */
public final class TagStore {
  /** Prefix under which tag files live. */
  public static final String TAGS_PREFIX = "_refs/tags/";

  private static final String SUFFIX = ".tag";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private final TableIo io;
  private final Clock clock;

  public TagStore(TableIo io, Clock clock) {
    this.io = io;
    this.clock = clock;
  }

  /** The key of a tag's file. */
  public static String keyOf(String name) {
    return TAGS_PREFIX + checkName(name) + SUFFIX;
  }

  private static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      throw new InvalidArgumentException(
          "invalid tag name '" + name + "': tag names are 1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-'"
              + " (and not '.' or '..')");
    }
    return name;
  }

  /**
   * Tags {@code version} as {@code name}.
   *
   * @throws InvalidArgumentException if the name is not 1–128 characters of {@code [A-Za-z0-9._-]}
   * @throws TagAlreadyExistsException if a tag of that name exists (whatever version it names)
   * @throws VersionNotFoundException if the version was never committed or has been cleaned up
   */
  public void create(String name, long version) {
    String key = keyOf(name);
    io.load(version); // VersionNotFoundException when absent
    byte[] bytes = RefCodec.encodeTag(new TagRef(version, clock.instant()));
    if (io.store().putIfAbsent(key, bytes) == ObjectStore.PutResult.ALREADY_EXISTS) {
      String existing;
      try {
        existing = "version " + read(name, key).version();
      } catch (RuntimeException e) {
        existing = "another version";
      }
      throw new TagAlreadyExistsException(
          name,
          "tag '" + name + "' of table " + io.location() + " already exists and names " + existing
              + "; tags are never moved: delete it first, or choose another name");
    }
    // A cleanup that listed the tags before this one existed may have removed the version meanwhile;
    // check again (bypassing the cache) so a tag never names a version that is gone.
    if (io.commitStore().read(version).isEmpty()) {
      io.store().delete(key);
      throw new VersionNotFoundException(
          version,
          "version " + version + " of table " + io.location() + " was removed by a cleanup while tag '" + name
              + "' was being created; the tag was not created. Tag a version that still exists.");
    }
  }

  /** The version a tag names. */
  public long version(String name) {
    return read(name, keyOf(name)).version();
  }

  /** Every tag, name → version, sorted by name. */
  public SortedMap<String, Long> list() {
    SortedMap<String, Long> out = new TreeMap<>();
    for (ObjectInfo info : io.store().listAll(TAGS_PREFIX)) {
      String key = info.key();
      if (!key.endsWith(SUFFIX)) {
        continue;
      }
      String name = key.substring(TAGS_PREFIX.length(), key.length() - SUFFIX.length());
      if (!NAME.matcher(name).matches()) {
        continue;
      }
      byte[] bytes;
      try {
        bytes = io.store().read(key);
      } catch (ObjectNotFoundException e) {
        continue; // deleted since the listing
      }
      out.put(name, RefCodec.decodeTag(bytes, io.store().locationOf(key)).version());
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /**
   * Deletes a tag. The version it named stays until a cleanup removes it.
   *
   * @throws TagNotFoundException if no tag has that name
   */
  public void delete(String name) {
    String key = keyOf(name);
    if (io.store().head(key).isEmpty()) {
      throw notFound(name);
    }
    io.store().delete(key);
  }

  private TagRef read(String name, String key) {
    try {
      return RefCodec.decodeTag(io.store().read(key), io.store().locationOf(key));
    } catch (ObjectNotFoundException e) {
      throw notFound(name);
    }
  }

  private TagNotFoundException notFound(String name) {
    return new TagNotFoundException(
        name, "no tag '" + name + "' in table " + io.location() + "; list the tags with tags().list()");
  }
}
