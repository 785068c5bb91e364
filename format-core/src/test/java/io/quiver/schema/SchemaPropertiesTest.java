package io.quiver.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals(countNodes(arrow.getFields()), all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(firstId + i, all.get(i).id(), "preorder position " + i);
    }
    assertEquals(firstId + all.size() - 1, allocator.maxAllocated());
    assertEquals(firstId + all.size() - 1, schema.maxFieldId());
    for (Field top : schema.fields()) {
      assertEquals(-1, top.parentId());
    }
    for (Field f : all) {
      int previous = f.id();
      for (Field c : f.children()) {
        assertEquals(f.id(), c.parentId());
        assertTrue(c.id() > previous, "children ids increase in order");
        previous = c.id();
      }
      assertEquals(f.preorder().size() - 1 + f.id(), f.preorder().get(f.preorder().size() - 1).id());
    }
  }

  @Property(tries = 300, seed = SEED)
  void arrowRoundTripIsExact(@ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    assertEquals(arrow, schema.toArrow());
    for (Field top : schema.fields()) {
      assertEquals(arrow.findField(top.name()), top.toArrow());
    }
  }

  @Property(tries = 300, seed = SEED)
  void idsRoundTripThroughArrowMetadata(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow,
      @ForAll @IntRange(min = 0, max = 1000) int firstId) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(firstId - 1));
    org.apache.arrow.vector.types.pojo.Schema stored = schema.toArrowWithIds();

    Schema reread = Schema.fromArrowWithIds(stored);
    assertEquals(schema, reread);
    assertTrue(schema.sameStructure(reread));
    // Fresh conversion ignores stored ids, so the same allocator start gives the same schema.
    assertEquals(schema, Schema.fromArrow(stored, new FieldIdAllocator(firstId - 1)));
  }

  @Property(tries = 300, seed = SEED)
  void everyFieldIsFoundByItsPathAndId(@ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    for (Field f : schema.allFields()) {
      assertEquals(f, schema.field(f.id()));
      String path = schema.pathOf(f.id());
      assertEquals(f, schema.findField(path).orElseThrow(), path);
      if (f.parentId() == -1) {
        assertFalse(schema.parentOf(f.id()).isPresent());
        assertEquals(f, schema.findTopLevel(f.name()).orElseThrow());
      } else {
        Field parent = schema.parentOf(f.id()).orElseThrow();
        assertTrue(parent.children().contains(f));
        assertEquals(schema.pathOf(parent.id()) + "." + f.name(), path);
      }
    }
    assertFalse(schema.findField(schema.maxFieldId() + 1).isPresent());
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
    assertEquals(expected, atomic.stream().map(Field::id).collect(Collectors.toList()));
    // Projecting all atomic fields rebuilds the schema.
    assertEquals(schema, schema.project(expected));
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
    assertEquals(schema.metadata(), projected.metadata());
    List<Integer> originalOrder = all.stream().map(Field::id).collect(Collectors.toList());
    List<Integer> projectedOrder = projected.allFields().stream().map(Field::id).collect(Collectors.toList());
    List<Integer> filtered = new ArrayList<>(originalOrder);
    filtered.retainAll(new HashSet<>(projectedOrder));
    assertEquals(filtered, projectedOrder);

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
      assertEquals(schema.field(anchor), kept);
      assertEquals(schema.pathOf(anchor), projected.pathOf(anchor));
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
        assertTrue(f.isStruct(), "unrequested non-struct kept: " + projected.pathOf(f.id()));
        assertTrue(
            f.preorder().stream().anyMatch(d -> expectedAnchors.contains(d.id())),
            "struct kept without requested descendants: " + projected.pathOf(f.id()));
      }
    }
    // Projection is idempotent and order-insensitive.
    assertEquals(projected, projected.project(requested));
    List<Integer> reversed = new ArrayList<>(requested);
    java.util.Collections.reverse(reversed);
    assertEquals(projected, schema.project(reversed));
  }

  @Property(tries = 100, seed = SEED)
  void projectingEveryTopLevelFieldIsIdentity(
      @ForAll("arrowSchemas") org.apache.arrow.vector.types.pojo.Schema arrow) {
    Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    assertEquals(schema, schema.project(schema.fields().stream().map(Field::id).collect(Collectors.toList())));
    assertEquals(schema, schema.project(schema.allFields().stream().map(Field::id).collect(Collectors.toList())));
    assertEquals(List.of(), schema.project(List.of()).fields());
  }
}
