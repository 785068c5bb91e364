"""Full and projected scans of one table by quiver-py, pyarrow reading the same Arrow files directly, and
pylance (a Lance dataset written from the same rows). Prints a Markdown table; run.sh drives it.

    python bench.py TABLE_DIR [--lance LANCE_DIR] [--repeat N]
"""
import argparse
import glob
import os
import statistics
import time

import pyarrow as pa
import pyarrow.ipc as ipc

import quiver


def timed(fn, repeat):
    out, times = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times), min(times)


def arrow_files_scan(files, columns):
    rows = 0
    for f in files:
        with pa.OSFile(f) as src:
            r = ipc.open_file(src)
            if columns is not None:
                idx = [r.schema.get_field_index(c) for c in columns]
                r = ipc.open_file(pa.OSFile(f), options=ipc.IpcReadOptions(included_fields=idx))
            t = r.read_all()
            rows += t.num_rows
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--lance")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.table, "data", "*.arrow")))
    t = quiver.open(a.table)
    n = t.count_rows()
    cases = []
    for label, cols in (("full scan", None), ("projected scan (id, x)", ["id", "x"])):
        _, q_med, q_min = timed(lambda: sum(b.num_rows for b in t.to_batches(columns=cols)), a.repeat)
        _, p_med, p_min = timed(lambda: arrow_files_scan(files, cols), a.repeat)
        row = [label, q_med, p_med]
        if a.lance:
            import lance
            ds = lance.dataset(a.lance)
            _, l_med, _ = timed(lambda: sum(b.num_rows for b in ds.to_batches(columns=cols)), a.repeat)
            row.append(l_med)
        cases.append(row)
    print("%d rows, %d data files, median of %d runs (seconds)\n" % (n, len(files), a.repeat))
    head = "| scan | quiver-py | pyarrow (same files) | quiver-py / pyarrow speed |"
    sep = "|---|---|---|---|"
    if a.lance:
        head += " pylance | quiver-py / pylance speed |"
        sep += "---|---|"
    print(head)
    print(sep)
    for row in cases:
        line = "| %s | %.3f | %.3f | %.2f× |" % (row[0], row[1], row[2], row[2] / row[1])
        if a.lance:
            line += " %.3f | %.2f× |" % (row[3], row[3] / row[1])
        print(line)


if __name__ == "__main__":
    main()
