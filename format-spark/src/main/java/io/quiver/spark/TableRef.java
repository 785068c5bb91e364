package io.quiver.spark;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a table is and how to reach it, as shipped from the driver to executors: the table URI and the
 * store options (credentials, endpoints) the catalog or the reader/writer options gave. Immutable and
 * serializable; everything an executor needs to open the table itself.
 *
 * @param uri the table's URI (any scheme a store adapter on the classpath handles; a plain path is local)
 * @param storeOptions store options, passed to {@link DatasetOptions.Builder#storeOptions}
 */
public record TableRef(String uri, Map<String, String> storeOptions) implements Serializable {
  private static final long serialVersionUID = 1L;

  public TableRef {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("a Quiver table needs a URI (option 'path' or the catalog's warehouse)");
    }
    storeOptions = storeOptions == null ? Map.of() : Map.copyOf(new TreeMap<>(storeOptions));
  }

  /** Dataset options with these store options (and the default registry, so adapters are found). */
  public DatasetOptions datasetOptions() {
    return DatasetOptions.builder().storeOptions(storeOptions).build();
  }

  /** Opens the table's latest version. */
  public Dataset open() {
    return Dataset.open(uri, datasetOptions());
  }

  @Override
  public String toString() {
    // Store options may hold secrets: never print their values.
    return "TableRef[" + uri + ", store options " + storeOptions.keySet() + "]";
  }
}
