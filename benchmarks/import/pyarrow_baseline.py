"""pyarrow baseline of benchmarks/import/run.sh: CSV or JSON lines -> Arrow IPC file, streaming.

    python pyarrow_baseline.py csv|jsonl <input> <output.arrow>

Uses pyarrow's streaming readers (pyarrow.csv.open_csv, pyarrow.json.open_json where this pyarrow has it,
else pyarrow.json.read_json) and writes each batch as it comes, so memory is bounded as in quiver import.
Prints rows and the reader used.
"""
import sys

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.json as pjson


def main():
    kind, src, dst = sys.argv[1:4]
    rows = 0
    if kind == "csv":
        reader = pcsv.open_csv(src)
        how = "pyarrow.csv.open_csv"
    elif hasattr(pjson, "open_json"):
        reader = pjson.open_json(src)
        how = "pyarrow.json.open_json"
    else:
        table = pjson.read_json(src)
        reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
        how = "pyarrow.json.read_json"
    with pa.OSFile(dst, "wb") as sink, pa.ipc.new_file(sink, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    print(f"{how} pyarrow {pa.__version__} rows {rows}")


if __name__ == "__main__":
    main()
