"""Full and projected scans of one table by quiver-py, pyarrow reading the same Arrow files directly (with its
default threads and on one thread), pylance (a Lance dataset written from the same rows) and, from JavaScan's
output, the Java reader. Every Python reader's scan is consumed the same way: rows counted and ``id`` summed
(benchmark 1's Scans.consume does the same in Java), the checksum checked. Prints a Markdown table; run.sh drives it.

With ``--ops OPS_DIR`` (MakeOpsData's output, JavaOps's output in ``--java-ops``) it also times the operations
of issue 44's pylance baseline on the same table and readers: a take of 1,000 random rows of (id, x, s), a
filtered scan of 1% of the clustered ``id``, a merge-insert of 1% of the rows (pylance and the Java library: quiver-py
does not write) and, on OPS_DIR's blob table, Lance's published take shape (200 queries of 200 scattered rows of a
~1 KiB string column). Every reader takes the same rows (``positions``, computed as JavaOps computes them).

    python bench.py TABLE_DIR [--lance LANCE_DIR] [--java JAVA_SCAN_OUTPUT] [--repeat N]
                    [--ops OPS_DIR --java-ops JAVA_OPS_OUTPUT]
"""
import argparse
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


def java_results(path, tag="java-scan"):
    """{label: median seconds} from JavaScan's lines ``java-scan <label> median_s=<s> min_s=<s>`` (JavaOps:
    ``java-op``); the other ``key=value`` fields of a line go to ``{label}.{key}``."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == tag:
                out[parts[1]] = float(parts[2].split("=", 1)[1])
                for kv in parts[3:]:
                    k, v = kv.split("=", 1)
                    out[parts[1] + "." + k] = float(v)
    return out


MASK = (1 << 64) - 1


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def positions(rows, count, q):
    """JavaOps.positions: ``count`` distinct row positions in [0, rows) for query ``q``, in hash order."""
    picked, k = {}, 0
    while len(picked) < count:
        picked.setdefault(mix(((q + 1) * 0x9E3779B97F4A7C15 + k) & MASK) % rows, None)
        k += 1
    return list(picked)


def addresses(t, pos):
    """Row positions to quiver row addresses over the table's fragments in order (no deletions)."""
    starts, ids = [0], []
    for f in t._snap.fragments():
        ids.append(f.id)
        starts.append(starts[-1] + f.physical_rows)
    import bisect
    return [(ids[i] << 32) | (p - starts[i]) for p in pos for i in [bisect.bisect_right(starts, p) - 1]]


def timed_each(fn, items, repeat):
    """Median and min over ``repeat`` passes of fn(item) for every item, each call timed on its own."""
    times = []
    for _ in range(repeat):
        for it in items:
            t0 = time.perf_counter()
            fn(it)
            times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def ops_cases(a, t, ds, java_ops):
    """Rows (label, {reader: seconds}, note) of the operations benchmark."""
    import lance
    n = t.count_rows()
    rows = []
    sets = [positions(n, 1000, q) for q in range(20)]

    def check_take(tbl, pos, who):
        if pc.sum(tbl.column("id")).as_py() != sum(pos) or tbl.num_rows != len(pos):
            raise SystemExit("%s take: wrong rows" % who)

    take = {}
    take["pylance"] = timed_each(lambda p: check_take(ds.take(p, columns=["id", "x", "s"]), p, "pylance"),
                                 sets, a.repeat)[0]
    qsets = [(addresses(t, p), p) for p in sets[:5]]
    take["quiver-py"] = timed_each(lambda ap: check_take(t.take(ap[0], ["id", "x", "s"]), ap[1], "quiver-py"),
                                   qsets, 1)[0]
    if "take" in java_ops:
        take["Java library"] = java_ops["take"]
    rows.append(("take 1,000 random rows of (id, x, s), one call", take, "per call; quiver-py: 5 calls, one pass"))

    lo, hi = n // 2, n // 2 + n // 100
    want = (hi - lo, (hi * (hi - 1) - lo * (lo - 1)) // 2)
    filt = {}
    got, filt["quiver-py"], _ = timed(lambda: consume(t.to_batches(
        columns=["id", "x"], filter=(quiver.col("id") >= lo) & (quiver.col("id") < hi))), a.repeat)
    if got != want:
        raise SystemExit("quiver-py filtered scan: %s, expected %s" % (got, want))
    got, filt["pylance"], _ = timed(lambda: consume(ds.to_batches(
        columns=["id", "x"], filter="id >= %d AND id < %d" % (lo, hi))), a.repeat)
    if got != want:
        raise SystemExit("pylance filtered scan: %s, expected %s" % (got, want))
    if "filtered" in java_ops:
        filt["Java library"] = java_ops["filtered"]
    rows.append(("filtered scan, 1%% of the clustered id (id >= %d and id < %d), (id, x)" % (lo, hi), filt, ""))

    src_path = os.path.join(a.ops, "merge-source.arrow")
    with pa.OSFile(src_path) as f:
        src = ipc.open_file(f).read_all()
    base = lance.dataset(a.lance)
    v0 = base.version
    merge_times = []
    try:
        for i in range(1 + a.repeat):
            d = lance.dataset(a.lance)
            t0 = time.perf_counter()
            r = d.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(src)
            dt = time.perf_counter() - t0
            m = src.num_rows
            if r["num_updated_rows"] != m // 2 or r["num_inserted_rows"] != m - m // 2:
                raise SystemExit("pylance merge: %s" % r)
            if i >= 1:
                merge_times.append(dt)
            lance.dataset(a.lance, version=v0).restore()
    finally:
        if lance.dataset(a.lance).count_rows() != n:
            lance.dataset(a.lance, version=v0).restore()
    merge = {"pylance": statistics.median(merge_times)}
    if "merge" in java_ops:
        merge["Java library"] = java_ops["merge"]
    rows.append(("merge-insert of 1%% (%d source rows, half matched), update all / insert all" % src.num_rows,
                 merge, "each merge undone by a restore, untimed"))

    blob_dir = os.path.join(a.ops, "blob-lance")
    if os.path.isdir(blob_dir) and "blob-take" in java_ops:
        bds = lance.dataset(blob_dir)
        bn = bds.count_rows()
        bsets = [positions(bn, 200, q) for q in range(200)]
        text0 = pc.sum(pc.binary_length(bds.take(bsets[0], columns=["text"]).column("text"))).as_py()
        if text0 != java_ops["blob-take.text_bytes"]:
            raise SystemExit("pylance blob take: %d text bytes, the Java library %d"
                             % (text0, java_ops["blob-take.text_bytes"]))
        per = []
        passes = []
        for _ in range(max(1, a.repeat // 2) + 1):
            t_pass = time.perf_counter()
            for p in bsets:
                t0 = time.perf_counter()
                got = bds.take(p, columns=["text"])
                per.append(time.perf_counter() - t0)
                if got.num_rows != 200:
                    raise SystemExit("pylance blob take: %d rows" % got.num_rows)
            passes.append(time.perf_counter() - t_pass)
        per = per[200:]  # the first pass warms up
        passes = passes[1:]
        blob = {"pylance": statistics.median(per), "Java library": java_ops["blob-take.p50_ms"] / 1e3}
        qps = {"pylance": 200 / min(passes), "Java library": java_ops["blob-take.qps"]}
        rows.append(("Lance's published take shape: 200 scattered rows of a ~1 KiB string, p50 per query (%d rows)"
                     % bn, blob, "QPS: Java library %.1f, pylance %.1f (Lance's PR #7672, 100M rows, NVMe: 205.6)"
                     % (qps["Java library"], qps["pylance"])))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--lance")
    ap.add_argument("--java", help="JavaScan's output")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", help="MakeOpsData's output directory: also time take, filter and merge-insert")
    ap.add_argument("--java-ops", help="JavaOps's output")
    a = ap.parse_args()
    t = quiver.open(a.table)
    # The base files of the version's fragments (data/ may also hold files of merges that JavaOps undid).
    files = [os.path.join(a.table, df.path) for f in t._snap.fragments() for df in f.files]
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
    if a.ops and ds is not None:
        java_ops = java_results(a.java_ops, "java-op") if a.java_ops else {}
        ops = ops_cases(a, t, ds, java_ops)
        print("\nOperations, median seconds; speed = pylance's time / the other's (above 1: faster than pylance)\n")
        print("| operation | Java library | quiver-py | pylance | Java library / pylance speed |"
              " quiver-py / pylance speed | note |")
        print("|---|---|---|---|---|---|---|")
        for label, got, note in ops:
            lance_s = got["pylance"]
            cell = lambda k: "%.4f" % got[k] if k in got else "—"  # noqa: E731
            ratio = lambda k: "%.2f×" % (lance_s / got[k]) if k in got else "—"  # noqa: E731
            print("| %s | %s | %s | %.4f | %s | %s | %s |" % (label, cell("Java library"), cell("quiver-py"),
                                                             lance_s, ratio("Java library"), ratio("quiver-py"), note))


if __name__ == "__main__":
    main()
