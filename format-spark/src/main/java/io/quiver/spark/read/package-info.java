/**
 * Spark's DSv2 read path over Quiver scan tasks: pruning, filter and limit pushdown, columnar batches of Arrow
 * vectors. Used through {@link io.quiver.spark.QuiverTable}; not API.
 */
package io.quiver.spark.read;
