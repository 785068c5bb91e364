package io.quiver.flink.source;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Scanner;
import io.quiver.predicate.Predicate;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.RowType;

/**
 * What a {@link QuiverSource} reads, resolved by its builder: the table, the version to start from, the columns
 * (always explicit, so the rows keep one type whatever columns later versions add), the filter, and the split
 * options, and how rows are emitted (flattened, limited; a changelog source emits each later version's changes with their
 * row kinds). Shipped to the enumerator and the readers by Java serialization.
 */
record SourceConfig(
    String uri,
    HashMap<String, String> storeOptions,
    ArrayList<String> columns,
    Filters.Node filter,
    long version,
    boolean continuous,
    long discoveryMillis,
    int batchSize,
    long targetTaskBytes,
    RowType rowType,
    FlatRows flat,
    long limit,
    boolean changelog) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The type of the rows emitted: the rows read, or their flattening. */
  RowType producedType() {
    return flat == null ? rowType : flat.producedType();
  }

  DatasetOptions datasetOptions() {
    return DatasetOptions.builder().storeOptions(Map.copyOf(storeOptions)).build();
  }

  /** The scan's columns, filter and split options on {@code scan}. */
  Scanner configure(Scanner scan) {
    scan.columns(List.copyOf(columns)).batchSize(batchSize);
    if (filter != null) {
      Predicate p = Filters.decode(filter);
      scan.filter(p);
    }
    if (targetTaskBytes > 0) {
      scan.targetTaskBytes(targetTaskBytes);
    }
    if (limit >= 0 && !continuous) {
      scan.limit(limit);
    }
    return scan;
  }
}
