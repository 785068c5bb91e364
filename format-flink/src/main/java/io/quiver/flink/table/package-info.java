/**
 * Flink SQL and the Table API over Quiver tables: the {@code 'connector' = 'quiver'} table factory
 * ({@link io.quiver.flink.table.QuiverDynamicTableFactory}) with its options
 * ({@link io.quiver.flink.table.QuiverTableOptions}), a scan source with projection, filter and limit pushdown
 * and lookup joins, and sinks that append insert-only streams or, for tables with a primary key, commit each
 * checkpoint's changelog as one row delta. See docs/flink.md, "Flink SQL".
 */
package io.quiver.flink.table;
