"""Full and projected scans of one table by quiver-py, pyarrow reading the same Arrow files directly (with its
default threads and on one thread), pylance (a Lance dataset written from the same rows) and, from JavaScan's
output, the Java reader. Every Python reader's scan is consumed the same way: rows counted and ``id`` summed
(benchmark 1's Scans.consume does the same in Java), the checksum checked. Prints a Markdown table; run.sh drives it.

    python bench.py TABLE_DIR [--lance LANCE_DIR] [--java JAVA_SCAN_OUTPUT] [--repeat N]
"""
import argparse
import glob
import os
import statistics
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

import quiver


def timed(fn, repeat):
    out, times = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times), min(times)


def consume(batches):
    """(rows, sum of id) over record batches (or tables)."""
    rows = total = 0
    for b in batches:
        rows += b.num_rows
        total += pc.sum(b.column("id")).as_py() or 0
    return rows, total


def arrow_files_scan(files, columns, use_threads):
    def tables():
        for f in files:
            with pa.OSFile(f) as src:
                r = ipc.open_file(src)
                idx = None if columns is None else [r.schema.get_field_index(c) for c in columns]
            with pa.OSFile(f) as src:
                yield ipc.open_file(src, options=ipc.IpcReadOptions(included_fields=idx,
                                                                     use_threads=use_threads)).read_all()
    return consume(tables())


def java_results(path):
    """{label: median seconds} from JavaScan's lines ``java-scan <label> median_s=<s> min_s=<s>``."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "java-scan":
                out[parts[1]] = float(parts[2].split("=", 1)[1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--lance")
    ap.add_argument("--java", help="JavaScan's output")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.table, "data", "*.arrow")))
    t = quiver.open(a.table)
    n = t.count_rows()
    want = (n, n * (n - 1) // 2)  # BenchData: id = row number
    java = java_results(a.java) if a.java else {}
    ds = None
    if a.lance:
        import lance
        ds = lance.dataset(a.lance)
    cases = []
    for label, key, cols in (("full scan", "full", None), ("projected scan (id, x)", "projected", ["id", "x"])):
        runs = [("quiver-py", lambda: consume(t.to_batches(columns=cols))),
                ("pyarrow", lambda: arrow_files_scan(files, cols, True)),
                ("pyarrow, one thread", lambda: arrow_files_scan(files, cols, False))]
        if ds is not None:
            runs.append(("pylance", lambda: consume(ds.to_batches(columns=cols))))
        row = {"label": label}
        for name, fn in runs:
            got, med, _ = timed(fn, a.repeat)
            if got != want:
                raise SystemExit("%s %s: (rows, sum of id) %s, expected %s" % (name, label, got, want))
            row[name] = med
        if key in java:
            row["Java reader"] = java[key]
        cases.append(row)
    print("%d rows, %d data files, median of %d runs (seconds); speed = other reader's time / quiver-py's\n"
          % (n, len(files), a.repeat))
    others = [k for k in ("Java reader", "pyarrow", "pyarrow, one thread", "pylance") if k in cases[0]]
    print("| scan | quiver-py | " + " | ".join(others) + " | "
          + " | ".join("quiver-py / %s speed" % o for o in others) + " |")
    print("|---|---|" + "---|" * (2 * len(others)))
    for row in cases:
        q = row["quiver-py"]
        print("| %s | %.3f | " % (row["label"], q) + " | ".join("%.3f" % row[o] for o in others) + " | "
              + " | ".join("%.2f×" % (row[o] / q) for o in others) + " |")


if __name__ == "__main__":
    main()
