package io.quiver.internal.write;

import io.quiver.exceptions.SchemaMismatchException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Checks that incoming Arrow batches fit the table schema before anything is written. */
final public class BatchValidator {
  private BatchValidator() {}

  /**
   * @throws SchemaMismatchException naming the first field whose name, type, nullability or children
   *     differ, or a non-nullable field that holds nulls
   */
  static void check(Schema expected, VectorSchemaRoot batch) {
    List<Field> want = expected.getFields();
    List<Field> got = batch.getSchema().getFields();
    if (want.size() != got.size()) {
      throw new SchemaMismatchException(
          "batch has " + got.size() + " columns " + names(got) + " but the table has " + want.size() + " "
              + names(want) + "; supply exactly the table's columns in its order");
    }
    for (int i = 0; i < want.size(); i++) {
      compare(want.get(i), got.get(i), want.get(i).getName());
    }
    for (FieldVector vector : batch.getFieldVectors()) {
      checkNulls(vector, vector.getField().getName());
    }
  }

  private static void compare(Field want, Field got, String path) {
    if (!want.getName().equals(got.getName())) {
      throw new SchemaMismatchException(
          "column " + path + ": expected name '" + want.getName() + "', found '" + got.getName() + "'");
    }
    if (!want.getType().equals(got.getType())) {
      throw new SchemaMismatchException(
          "column " + path + ": expected type " + want.getType() + ", found " + got.getType()
              + "; cast the data to the table's type");
    }
    if (want.isNullable() != got.isNullable()) {
      throw new SchemaMismatchException(
          "column " + path + ": expected " + (want.isNullable() ? "nullable" : "non-nullable") + ", found "
              + (got.isNullable() ? "nullable" : "non-nullable"));
    }
    if (got.getDictionary() != null) {
      throw new SchemaMismatchException("column " + path + " is dictionary-encoded; decode it before writing");
    }
    List<Field> wc = want.getChildren();
    List<Field> gc = got.getChildren();
    if (wc.size() != gc.size()) {
      throw new SchemaMismatchException(
          "column " + path + ": expected " + wc.size() + " children " + names(wc) + ", found " + gc.size() + " "
              + names(gc));
    }
    for (int i = 0; i < wc.size(); i++) {
      compare(wc.get(i), gc.get(i), path + "." + wc.get(i).getName());
    }
  }

  private static void checkNulls(FieldVector vector, String path) {
    if (!vector.getField().isNullable() && vector.getNullCount() > 0) {
      throw new SchemaMismatchException(
          "column " + path + " is non-nullable but the batch holds " + vector.getNullCount() + " nulls in it");
    }
    for (FieldVector child : vector.getChildrenFromFields()) {
      checkNulls(child, path + "." + child.getField().getName());
    }
  }

  private static String names(List<Field> fields) {
    return fields.stream().map(Field::getName).toList().toString();
  }
}
