/**
 * Spark's DSv2 batch and streaming writes: executors write fragments with Quiver's distributed writer, the
 * driver commits once, exactly once. Used through {@link io.quiver.spark.QuiverTable}; not API.
 */
package io.quiver.spark.write;
