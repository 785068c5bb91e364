package io.quiver.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.predicate.Predicate;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of predicate survives the source's Java serialization unchanged (none is widened to TRUE). */
class FiltersTest {
  @Test
  void everyPredicateKindRoundTripsThroughJavaSerialization() throws Exception {
    Predicate p = Predicate.and(
        Predicate.or(Predicate.lt("id", 10L), Predicate.in("name", List.of("a", "b"))),
        Predicate.not(Predicate.isNull("s.x")),
        Predicate.compareColumns("a", Predicate.Op.GT, "b"),
        Predicate.TRUE);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(Filters.encode(p));
    }
    Filters.Node back;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (Filters.Node) in.readObject();
    }
    assertThat(Filters.decode(back)).isEqualTo(p);
    assertThat(Filters.decode(back).toString()).isEqualTo(p.toString());
  }
}
