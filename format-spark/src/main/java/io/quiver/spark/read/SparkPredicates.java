package io.quiver.spark.read;

import java.util.Optional;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructType;

/** STUB (being written): Spark's DSv2 predicates as Quiver predicates. */
public final class SparkPredicates {
  private SparkPredicates() {}

  /** The Quiver predicate equivalent to {@code p} over {@code schema}, or empty when there is none. */
  public static Optional<io.quiver.predicate.Predicate> toQuiver(Predicate p, StructType schema) {
    return Optional.empty();
  }
}
