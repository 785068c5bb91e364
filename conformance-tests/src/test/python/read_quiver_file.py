"""Cross-reader check of Quiver data files with Arrow C++ (pyarrow), run by PyArrowReadsQuiverIT.

usage: read_quiver_file.py DATA_FILE EXPECTED_JSON OUT_DIR

Opens DATA_FILE (an Arrow IPC file with compressed record batch bodies) with pyarrow, compares every cell
with EXPECTED_JSON (a list of rows, each a JSON object keyed by column name; float32 values are written as
their exact double value), and exits 1 naming the first difference. Then writes the same table with pyarrow's
LZ4_FRAME and ZSTD body compression to OUT_DIR/pyarrow-lz4.arrow and OUT_DIR/pyarrow-zstd.arrow for Quiver to
read back.
"""
import json
import sys

import pyarrow as pa
import pyarrow.ipc as ipc


def main():
    data_file, expected_file, out_dir = sys.argv[1:4]
    with pa.memory_map(data_file) as source:
        reader = ipc.open_file(source)
        table = reader.read_all()
        batches = reader.num_record_batches
    with open(expected_file, encoding="utf-8") as f:
        expected = json.load(f)
    actual = table.to_pylist()
    if len(actual) != len(expected):
        print(f"row count: pyarrow read {len(actual)} rows, expected {len(expected)}")
        return 1
    for i, (got, want) in enumerate(zip(actual, expected)):
        if got != want:
            for column in want:
                if got.get(column) != want[column]:
                    print(f"row {i} column {column!r}: pyarrow read {got.get(column)!r}, expected {want[column]!r}")
                    return 1
            print(f"row {i}: pyarrow read {got!r}, expected {want!r}")
            return 1
    print(f"pyarrow {pa.__version__} read {len(actual)} rows in {batches} record batches of {data_file}, "
          f"{table.num_columns} columns, every cell as expected")
    for codec in ("lz4", "zstd"):
        path = f"{out_dir}/pyarrow-{codec}.arrow"
        options = ipc.IpcWriteOptions(compression=codec)
        with ipc.new_file(path, table.schema, options=options) as writer:
            writer.write_table(table, max_chunksize=1000)
        print(f"wrote {path} ({codec})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
