package io.quiver.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;

/** Guards the shared generator: other modules rely on it covering every supported shape. */
class SchemaArbitrariesTest {

  private static int depth(org.apache.arrow.vector.types.pojo.Field f) {
    int d = 0;
    for (org.apache.arrow.vector.types.pojo.Field c : f.getChildren()) {
      d = Math.max(d, 1 + depth(c));
    }
    return d;
  }

  private static void collect(org.apache.arrow.vector.types.pojo.Field f, Set<ArrowTypeID> types, boolean[] metadata) {
    types.add(f.getType().getTypeID());
    metadata[0] |= !f.getMetadata().isEmpty();
    for (org.apache.arrow.vector.types.pojo.Field c : f.getChildren()) {
      collect(c, types, metadata);
    }
  }

  @Example
  void coversEverySupportedTypeAndStaysValid() {
    RandomGenerator<org.apache.arrow.vector.types.pojo.Schema> gen =
        SchemaArbitraries.arrowSchemas().generator(1000);
    Random random = new Random(42);
    Set<ArrowTypeID> types = EnumSet.noneOf(ArrowTypeID.class);
    Set<Integer> topLevelCounts = new HashSet<>();
    boolean[] metadata = {false};
    boolean schemaMetadata = false;
    int maxDepth = 0;
    for (int i = 0; i < 500; i++) {
      org.apache.arrow.vector.types.pojo.Schema s = gen.next(random).value();
      Schema.fromArrow(s, new FieldIdAllocator(-1)); // valid, no reserved or duplicate names
      topLevelCounts.add(s.getFields().size());
      schemaMetadata |= !s.getCustomMetadata().isEmpty();
      for (org.apache.arrow.vector.types.pojo.Field f : s.getFields()) {
        collect(f, types, metadata);
        maxDepth = Math.max(maxDepth, depth(f));
      }
    }
    Set<ArrowTypeID> expected =
        EnumSet.complementOf(
            EnumSet.of(
                ArrowTypeID.Null,
                ArrowTypeID.Union,
                ArrowTypeID.Utf8View,
                ArrowTypeID.BinaryView,
                ArrowTypeID.ListView,
                ArrowTypeID.LargeListView,
                ArrowTypeID.RunEndEncoded,
                ArrowTypeID.NONE));
    assertThat(types).isEqualTo(expected);
    assertThat(topLevelCounts.containsAll(List.of(1, 8))).as(topLevelCounts.toString()).isTrue();
    assertThat(topLevelCounts.stream().allMatch(n -> n >= 1 && n <= 8)).as(topLevelCounts.toString()).isTrue();
    assertThat(maxDepth >= 3).as("deepest field " + maxDepth).isTrue();
    assertThat(metadata[0] && schemaMetadata).isTrue();
  }
}
