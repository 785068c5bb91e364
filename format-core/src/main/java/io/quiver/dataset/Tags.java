package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TagAlreadyExistsException;
import io.quiver.exceptions.TagNotFoundException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.internal.table.TagStore;
import java.util.SortedMap;

/**
 * Named references to versions of a table, stored at {@code _refs/tags/{name}.tag}. A tag is created
 * once (atomically, with a conditional put) and never moved; delete it and create it again to re-point
 * it. {@link Dataset#cleanup cleanup} never removes a tagged version.
 *
 * <p>Obtained from {@link Dataset#tags()}; shares the handle's store, so use it while the handle is open.
 */
public final class Tags {
  private final TagStore tags;

  Tags(TagStore tags) {
    this.tags = tags;
  }

  /**
   * Tags {@code version} as {@code name}.
   *
   * @throws InvalidArgumentException if the name is not 1–128 characters of {@code [A-Za-z0-9._-]}
   * @throws TagAlreadyExistsException if a tag of that name exists (whatever version it names)
   * @throws VersionNotFoundException if the version was never committed or has been cleaned up
   */
  public void create(String name, long version) {
    tags.create(name, version);
  }

  /**
   * The version a tag names.
   *
   * @throws TagNotFoundException if no tag has that name
   */
  public long version(String name) {
    return tags.version(name);
  }

  /** Every tag, name → version, sorted by name. */
  public SortedMap<String, Long> list() {
    return tags.list();
  }

  /**
   * Deletes a tag. The version it named stays until a cleanup removes it.
   *
   * @throws TagNotFoundException if no tag has that name
   */
  public void delete(String name) {
    tags.delete(name);
  }
}
