package io.quiver.flink.types;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@link TypeInformation} of {@link RowData} rows of one {@link RowType}, serialized by {@link
 * RowDataSerializer}: what the Quiver source produces, and what a job gives a stream of rows for the Quiver
 * sink ({@code FlinkTypes.typeInfo(rowType)}). flink-table-common has no such type information of its own
 * (Flink's {@code InternalTypeInfo} is in the table runtime), so the connector carries this one.
 */
public final class RowDataTypeInfo extends TypeInformation<RowData> {
  private static final long serialVersionUID = 1L;

  private final RowType rowType;

  /** The type information of rows of {@code rowType}. */
  public RowDataTypeInfo(RowType rowType) {
    this.rowType = Objects.requireNonNull(rowType, "rowType");
  }

  /** The rows' type. */
  public RowType rowType() {
    return rowType;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return rowType.getFieldCount();
  }

  @Override
  public int getTotalFields() {
    return rowType.getFieldCount();
  }

  @Override
  public Class<RowData> getTypeClass() {
    return RowData.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<RowData> createSerializer(SerializerConfig config) {
    return new RowDataSerializer(rowType);
  }

  @Override
  public String toString() {
    return "RowData<" + rowType.asSummaryString() + ">";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowDataTypeInfo other && other.rowType.equals(rowType);
  }

  @Override
  public int hashCode() {
    return rowType.hashCode();
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof RowDataTypeInfo;
  }
}
