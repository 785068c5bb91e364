/** The mapping between Quiver's Arrow types and Spark's SQL types, both ways. API. */
package io.quiver.spark.types;
