/**
 * Quiver's Arrow types and Flink's logical types, both ways ({@link io.quiver.flink.types.FlinkTypes}), and
 * the row converters the connector's source and sink use: Arrow batches to {@code RowData} ({@link
 * io.quiver.flink.types.ArrowRowDataReader}), {@code RowData} into Arrow vectors ({@link
 * io.quiver.flink.types.RowDataArrowWriter}), and a {@code TypeInformation} for {@code RowData} of a
 * {@code RowType} ({@link io.quiver.flink.types.RowDataTypeInfo}).
 */
package io.quiver.flink.types;
