package io.quiver.flink.table;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CommonCatalogOptions;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Makes a {@link QuiverCatalog}: {@code CREATE CATALOG q WITH ('type' = 'quiver', 'warehouse' = '…')}, or the SQL
 * client's and the catalog store's equivalent. Options: {@code warehouse} (required: any URI an adapter handles; a
 * path is local), {@code default-database} (default {@code default}), and the store options ({@code s3.*},
 * {@code gcs.*}, {@code azure.*}, {@code local.*}), which every table of the catalog is opened with. Any other key is
 * refused by Flink's {@code FactoryUtil} with the list of valid ones.
 */
public final class QuiverCatalogFactory implements CatalogFactory {
  /** The warehouse URI: database {@code db} is the prefix {@code <warehouse>/db}. */
  public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse").stringType().noDefaultValue()
      .withDescription("The URI the catalog's databases are prefixes of (any scheme an adapter handles; a path"
          + " is local).");

  /** The database {@code USE CATALOG} starts in; it always exists. */
  public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions
      .key(CommonCatalogOptions.DEFAULT_DATABASE_KEY).stringType().defaultValue("default")
      .withDescription("The database the catalog starts in.");

  @Override
  public String factoryIdentifier() {
    return QuiverTableOptions.IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(WAREHOUSE);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(DEFAULT_DATABASE);
  }

  @Override
  public Catalog createCatalog(Context context) {
    FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
    helper.validateExcept(QuiverTableOptions.STORE_OPTION_PREFIXES.toArray(String[]::new));
    String warehouse = helper.getOptions().get(WAREHOUSE);
    if (warehouse == null || warehouse.isBlank()) {
      throw new ValidationException("catalog '" + context.getName() + "' needs 'warehouse': the URI its tables live"
          + " under (for example s3://bucket/warehouse or /data/warehouse)");
    }
    Map<String, String> store = new HashMap<>();
    context.getOptions().forEach((k, v) -> {
      if (QuiverTableOptions.STORE_OPTION_PREFIXES.stream().anyMatch(k::startsWith)) {
        store.put(k, v);
      }
    });
    return new QuiverCatalog(context.getName(), helper.getOptions().get(DEFAULT_DATABASE), warehouse, store);
  }
}
