package io.quiver.dataset;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A small table used across dataset tests: {@code id int64 not null, name utf8, s struct<x int32,
 * y utf8>, tags list<int32>}. Every value is a function of the id, so a scanned row can be checked
 * from its id alone.
 */
public final class SampleTable {
  private SampleTable() {}

  public static final Schema SCHEMA =
      new Schema(
          List.of(
              new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
              new Field(
                  "s",
                  FieldType.nullable(ArrowType.Struct.INSTANCE),
                  List.of(
                      new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
                      new Field("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
              new Field(
                  "tags",
                  FieldType.nullable(ArrowType.List.INSTANCE),
                  List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)))));

  /** The expected row for an id, as the list of column values (null where the row holds a null). */
  public static String expectedName(long id) {
    return id % 7 == 3 ? null : "name-" + id;
  }

  public static boolean structIsNull(long id) {
    return id % 11 == 5;
  }

  public static Integer expectedX(long id) {
    return id % 5 == 1 ? null : (int) (id * 3);
  }

  public static List<Integer> expectedTags(long id) {
    if (id % 13 == 2) {
      return null;
    }
    List<Integer> tags = new ArrayList<>();
    for (int i = 0; i < id % 4; i++) {
      tags.add((int) id + i);
    }
    return tags;
  }

  /** A batch holding ids {@code [from, from + rows)}. The caller closes it. */
  public static VectorSchemaRoot batch(BufferAllocator allocator, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    VarCharVector y = (VarCharVector) s.getChild("y");
    ListVector tags = (ListVector) root.getVector("tags");
    UnionListWriter writer = tags.getWriter();
    for (int i = 0; i < rows; i++) {
      long v = from + i;
      id.setSafe(i, v);
      String n = expectedName(v);
      if (n == null) {
        name.setNull(i);
      } else {
        name.setSafe(i, n.getBytes(StandardCharsets.UTF_8));
      }
      if (structIsNull(v)) {
        s.setNull(i);
        x.setNull(i);
        y.setNull(i);
      } else {
        s.setIndexDefined(i);
        Integer xv = expectedX(v);
        if (xv == null) {
          x.setNull(i);
        } else {
          x.setSafe(i, xv);
        }
        y.setSafe(i, ("y" + v).getBytes(StandardCharsets.UTF_8));
      }
      List<Integer> t = expectedTags(v);
      writer.setPosition(i);
      if (t == null) {
        writer.writeNull();
      } else {
        writer.startList();
        for (int tag : t) {
          writer.integer().writeInt(tag);
        }
        writer.endList();
      }
    }
    id.setValueCount(rows);
    name.setValueCount(rows);
    s.setValueCount(rows);
    tags.setValueCount(rows);
    root.setRowCount(rows);
    return root;
  }

  /** Checks every cell of a full-width batch against the values its ids imply; returns the ids. */
  public static List<Long> checkRows(VectorSchemaRoot root) {
    List<Long> ids = new ArrayList<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    ListVector tags = (ListVector) root.getVector("tags");
    for (int i = 0; i < root.getRowCount(); i++) {
      long v = id.get(i);
      ids.add(v);
      String n = expectedName(v);
      Object actualName = name.getObject(i);
      check(n == null ? null : n, actualName == null ? null : actualName.toString(), v, "name");
      if (structIsNull(v)) {
        check(true, s.isNull(i), v, "s is null");
      } else {
        check(false, s.isNull(i), v, "s is null");
        check(expectedX(v), ((IntVector) s.getChild("x")).getObject(i), v, "s.x");
        check("y" + v, String.valueOf(((VarCharVector) s.getChild("y")).getObject(i)), v, "s.y");
      }
      check(expectedTags(v), tags.getObject(i), v, "tags");
    }
    return ids;
  }

  private static void check(Object expected, Object actual, long id, String what) {
    if (expected == null ? actual != null : !expected.equals(actual)) {
      throw new AssertionError("row " + id + " column " + what + ": expected " + expected + " but found " + actual);
    }
  }

  /** Drains a reader, checking each row; returns the ids in scan order. */
  public static List<Long> scanIds(ArrowReader reader) {
    List<Long> ids = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        ids.addAll(checkRows(reader.getVectorSchemaRoot()));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return ids;
  }

  /** ids [from, to) as a list. */
  public static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long v = from; v < to; v++) {
      out.add(v);
    }
    return out;
  }
}
