package io.quiver.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class SchemaPropertiesTest {
  private static final String SEED = "20261129";

  @Provide
  Arbitrary<org.apache.arrow.vector.types.pojo.Schema> arrowSchemas() {
    return SchemaArbitraries.arrowSchemas();
  }

  @Provide
  Arbitrary<List<Integer>> picks() {
    return Arbitraries.integers().between(0, 10_000).list().ofMaxSize(6);
  }

  private static int countNodes(List<org.apache.arrow.vector.types.pojo.Field> fields) {
    int n = 0;
    for (org.apache.arrow.vector.types.pojo.Field f : fields) {
      n += 1 + countNodes(f.getChildren());
    }
    return n;
  }

  @Property(tries = 300, seed = SEED)
  void idsAreDensePreorderWithCorrectParents(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow,
      @ForAll @IntRange(min = 0, max = 1000) int firstId) {
    FieldIdAllocator allocator = new FieldIdAllocator(firstId - 1);
    Schema schema = Schema.fromArrow(arrow, allocator);

    List<Field> all = schema.allFields();
    assertThat(all.size()).isEqualTo(countNodes(arrow.getFields()));
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).id()).as("preorder position " + i).isEqualTo(firstId + i);
    }
    assertThat(allocator.maxAllocated()).isEqualTo(firstId + all.size() - 1);
    assertThat(schema.maxFieldId()).isEqualTo(firstId + all.size() - 1);
    for (Field top : schema.fields()) {
      assertThat(top.parentId()).isEqualTo(-1);
    }
    for (Field f : all) {
      int previous = f.id();
      for (Field c : f.children()) {
        assertThat(c.parentId()).isEqualTo(f.id());
        assertThat(c.id() > previous).as("children ids increase in order").isTrue();
        previous = c.id();
      }
      assertThat(f.preorder().get(f.preorder().size() - 1).id()).isEqualTo(f.preorder().size() - 1 + f.id());
    }
  }

  @Property(tries = 300, seed = SEED)
  void arrowRoundTripIsExact(@ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    assertThat(schema.toArrow()).isEqualTo(arrow);
    for (Field top : schema.fields()) {
      assertThat(top.toArrow()).isEqualTo(arrow.findField(top.name()));
    }
  }

  @Property(tries = 300, seed = SEED)
  void idsRoundTripThroughArrowMetadata(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow,
      @ForAll @IntRange(min = 0, max = 1000) int firstId) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(firstId - 1));
    org.apache.arrow.vector.types.pojo.Schema stored = schema.toArrowWithIds();

    Schema reread = Schema.fromArrowWithIds(stored);
    assertThat(reread).isEqualTo(schema);
    assertThat(schema.sameStructure(reread)).isTrue();
    // Fresh conversion ignores stored ids, so the same allocator start gives the same schema.
    assertThat(Schema.fromArrow(stored, new FieldIdAllocator(firstId - 1))).isEqualTo(schema);
  }

  @Property(tries = 300, seed = SEED)
  void everyFieldIsFoundByItsPathAndId(@ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    for (Field f : schema.allFields()) {
      assertThat(schema.field(f.id())).isEqualTo(f);
      String path = schema.pathOf(f.id());
      assertThat(schema.findField(path).orElseThrow()).as(path).isEqualTo(f);
      if (f.parentId() == -1) {
        assertThat(schema.parentOf(f.id()).isPresent()).isFalse();
        assertThat(schema.findTopLevel(f.name()).orElseThrow()).isEqualTo(f);
      } else {
        Field parent = schema.parentOf(f.id()).orElseThrow();
        assertThat(parent.children().contains(f)).isTrue();
        assertThat(path).isEqualTo(schema.pathOf(parent.id()) + "." + f.name());
      }
    }
    assertThat(schema.findField(schema.maxFieldId() + 1).isPresent()).isFalse();
  }

  @Property(tries = 300, seed = SEED)
  void atomicFieldsAreTheNonStructsUnderStructsOnly(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    List<Field> atomic = schema.atomicFields();
    List<Integer> expected = new ArrayList<>();
    for (Field f : schema.allFields()) {
      boolean underStructsOnly = true;
      for (Field p = f; p.parentId() != -1; ) {
        p = schema.field(p.parentId());
        underStructsOnly &= p.isStruct();
      }
      if (f.isAtomic() && underStructsOnly) {
        expected.add(f.id());
      }
    }
    assertThat(atomic.stream().map(Field::id).collect(Collectors.toList())).isEqualTo(expected);
    // Projecting all atomic fields rebuilds the schema.
    assertThat(schema.project(expected)).isEqualTo(schema);
  }

  @Property(tries = 300, seed = SEED)
  void projectionKeepsRequestedFieldsWholeInSchemaOrder(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow,
      @ForAll("picks") List<Integer> picks) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    List<Field> all = schema.allFields();
    List<Integer> requested = picks.stream().map(p -> all.get(p % all.size()).id()).collect(Collectors.toList());

    Schema projected = schema.project(requested);

    // Same metadata, a subset of the nodes, in the original preorder.
    assertThat(projected.metadata()).isEqualTo(schema.metadata());
    List<Integer> originalOrder = all.stream().map(Field::id).collect(Collectors.toList());
    List<Integer> projectedOrder = projected.allFields().stream().map(Field::id).collect(Collectors.toList());
    List<Integer> filtered = new ArrayList<>(originalOrder);
    filtered.retainAll(new HashSet<>(projectedOrder));
    assertThat(projectedOrder).isEqualTo(filtered);

    Set<Integer> expectedAnchors = new HashSet<>();
    for (int id : requested) {
      int anchor = id;
      for (Field f = schema.field(id); ; f = schema.field(f.parentId())) {
        if (f.isAtomic()) {
          anchor = f.id();
        }
        if (f.parentId() == -1) {
          break;
        }
      }
      expectedAnchors.add(anchor);
      // The anchor is kept whole, with its path and ancestors.
      Field kept = projected.field(anchor);
      assertThat(kept).isEqualTo(schema.field(anchor));
      assertThat(projected.pathOf(anchor)).isEqualTo(schema.pathOf(anchor));
    }
    // Nothing else: every kept node is an anchor, inside one, or a struct above one.
    for (Field f : projected.allFields()) {
      boolean ok = false;
      for (Field p = f; ; p = projected.field(p.parentId())) {
        if (expectedAnchors.contains(p.id())) {
          ok = true;
          break;
        }
        if (p.parentId() == -1) {
          break;
        }
      }
      if (!ok) {
        assertThat(f.isStruct()).as("unrequested non-struct kept: " + projected.pathOf(f.id())).isTrue();
        assertThat(f.preorder().stream().anyMatch(d -> expectedAnchors.contains(d.id()))).as("struct kept without requested descendants: " + projected.pathOf(f.id())).isTrue();
      }
    }
    // Projection is idempotent and order-insensitive.
    assertThat(projected.project(requested)).isEqualTo(projected);
    List<Integer> reversed = new ArrayList<>(requested);
    java.util.Collections.reverse(reversed);
    assertThat(schema.project(reversed)).isEqualTo(projected);
  }

  @Property(tries = 100, seed = SEED)
  void projectingEveryTopLevelFieldIsIdentity(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    assertThat(schema.project(schema.fields().stream().map(Field::id).collect(Collectors.toList()))).isEqualTo(schema);
    assertThat(schema.project(schema.allFields().stream().map(Field::id).collect(Collectors.toList()))).isEqualTo(schema);
    assertThat(schema.project(List.of()).fields()).isEqualTo(List.of());
  }
}
