"""The Python reader on the checked-in compatibility fixtures, without the JVM."""
import glob
import os
import struct

import pyarrow as pa
import pytest

import quiver
from quiver import _envelope, _roaring, col
from quiver._manifest import version_path
from quiver._proto import manifest_file_pb2

from _compare import assert_same
from conftest import COMPAT, compat

TABLES = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(COMPAT, "*", "*", "_versions")))


def test_every_fixture_table_is_found():
    assert len(TABLES) >= 11


@pytest.mark.parametrize("table", TABLES, ids=lambda t: os.path.relpath(t, COMPAT))
def test_every_version_reads_and_counts_agree(table):
    for info in quiver.open(table).versions():
        t = quiver.open(table, version=info.version)
        a = t.to_arrow(with_row_address=True)
        assert a.num_rows == t.count_rows()
        assert a.schema.field("_rowaddr").type == pa.uint64()
        assert len(set(a.column("_rowaddr").to_pylist())) == a.num_rows
        # streaming: one batch per fragment with live rows, never more
        assert sum(b.num_rows for b in t.to_batches()) == a.num_rows


def test_format_10_cells_follow_the_fixture_formulas():
    # compat/format-1.0/README.md: row i: name "n<i>" (null when i % 7 == 6), s null when i % 5 == 4,
    # s.x = i * 10 (null when i % 3 == 2), s.y "y<i>"; v3 deletes id 3, v4 sets name = 'five' where id = 5.
    t = quiver.open(compat("format-1.0", "table"), version=5)
    rows = {r["id"]: r for r in t.to_arrow().to_pylist()}
    assert sorted(rows) == [i for i in range(45) if i != 3]
    for i, r in rows.items():
        want_name = "five" if i == 5 else (None if i % 7 == 6 else "n%d" % i)
        assert r["name"] == want_name, i
        if i % 5 == 4:
            assert r["s"] is None, i
        else:
            assert r["s"] == {"x": None if i % 3 == 2 else i * 10, "y": "y%d" % i}, i
    assert quiver.open(compat("format-1.0", "table"), version=3).count_rows() == 39


def test_schema_carries_field_ids_and_dropped_renamed_fields_follow_ids():
    h = compat("format-1.1", "history")
    t13 = quiver.open(h, version=13)
    names = t13.schema.names
    assert "memo" in names and "twice" not in names
    assert t13.schema.field("memo").metadata[b"quiver:field_id"] == b"4"
    memo = t13.to_arrow(columns=["id", "memo"]).to_pylist()
    assert all(r["memo"] == "t%d" % r["id"] for r in memo)
    assert t13.field_id("memo") == 4


def test_tags_and_timestamps():
    h = compat("format-1.1", "history")
    assert quiver.open(h, tag="compacted").version == 15
    infos = quiver.open(h).versions()
    assert [i.version for i in infos] == list(range(1, 19))
    assert quiver.open(h, timestamp=infos[6].timestamp_millis).version == 7
    assert quiver.open(h, timestamp=infos[6].timestamp).version == 7
    with pytest.raises(quiver.VersionNotFoundError):
        quiver.open(h, timestamp=infos[0].timestamp_millis - 1)
    with pytest.raises(quiver.VersionNotFoundError):
        quiver.open(h, version=99)
    with pytest.raises(quiver.VersionNotFoundError):
        quiver.open(h, tag="no-such-tag")


def test_struct_member_projection_keeps_struct_nulls():
    t = quiver.open(compat("format-1.1", "nested"))
    full = t.to_arrow().to_pylist()
    part = t.to_arrow(columns=["s.y", "id"]).to_pylist()
    assert [list(r) for r in part[:1]] == [["s", "id"]]
    for f, p in zip(full, part):
        assert p["s"] == (None if f["s"] is None else {"y": f["s"]["y"]})


FILTERS = [
    col("id") < 10,
    (col("id") >= 5) & (col("id") <= 20),
    (col("val") > 100) | col("name").is_null(),
    ~(col("id") < 30),
    col("id").isin([1, 7, 33]),
    col("name").is_null(),
    ~col("name").is_null(),
    col("name") == "n4",
]


@pytest.mark.parametrize("f", FILTERS, ids=repr)
@pytest.mark.parametrize("v", [1, 8, 15])
def test_filtered_reads_equal_full_read_plus_filter(f, v):
    t = quiver.open(compat("format-1.1", "history"), version=v)
    full = t.to_arrow(with_row_address=True)
    got = t.to_arrow(filter=f, with_row_address=True)
    assert got.to_pylist() == full.filter(f.to_pyarrow()).to_pylist()
    assert t.count_rows(filter=f) == got.num_rows


def test_statistics_prune_fragments_and_reads_stay_exact():
    t = quiver.open(compat("stats-1.1", "table"))
    full = t.to_arrow()
    lo = min(full.column("id").to_pylist())
    f = col("id") <= lo
    got = t.to_arrow(filter=f)
    stats = t.last_scan_stats
    assert got.to_pylist() == full.filter(f.to_pyarrow()).to_pylist()
    assert stats.fragments_total > 1
    assert stats.fragments_pruned >= 1, stats
    assert stats.fragments_read + stats.fragments_pruned == stats.fragments_total


def test_segmented_table_prunes_segments():
    t = quiver.open(compat("format-1.2-lists", "history"))
    assert t._snap.segment_refs
    full = t.to_arrow()
    f = col("id") == max(full.column("id").to_pylist())
    assert t.to_arrow(filter=f).to_pylist() == full.filter(f.to_pyarrow()).to_pylist()
    s = t.last_scan_stats
    assert s.segments_total >= 1 and s.fragments_read < s.fragments_total, s


def test_take_returns_rows_in_the_order_asked():
    t = quiver.open(compat("format-1.1", "nested"))
    full = t.to_arrow(with_row_address=True)
    addrs = full.column("_rowaddr").to_pylist()
    pick = [addrs[5], addrs[0], addrs[-1], addrs[5]]
    got = t.take(pick).to_pylist()
    byaddr = {r["_rowaddr"]: r for r in full.to_pylist()}
    for a, r in zip(pick, got):
        want = dict(byaddr[a])
        del want["_rowaddr"]
        assert repr(r) == repr(want)
    with pytest.raises(quiver.QuiverError):
        t.take([(999 << 32) | 1])


def _rewrite_manifest(table_dir, version, change):
    path = os.path.join(table_dir, version_path(version))
    mf = manifest_file_pb2.ManifestFile()
    mf.ParseFromString(open(path, "rb").read()[8:])
    change(mf)
    payload = mf.SerializeToString()
    with open(path, "wb") as f:
        f.write(b"QVM1" + struct.pack(">I", _envelope.crc32c(payload)) + payload)


def test_unknown_reader_feature_is_refused_naming_it(copy_table):
    d = copy_table(compat("format-1.1", "history"))
    _rewrite_manifest(d, 18, lambda mf: mf.manifest.reader_features.append("time-machine"))
    with pytest.raises(quiver.UnsupportedFeatureError) as e:
        quiver.open(d)
    assert e.value.feature == "time-machine"
    assert "time-machine" in str(e.value) and "upgrade" in str(e.value)
    assert quiver.open(d, version=17).count_rows() == 24  # other versions still read


def test_unknown_format_major_is_refused(copy_table):
    d = copy_table(compat("format-1.1", "history"))
    _rewrite_manifest(d, 18, lambda mf: setattr(mf.manifest.format_version, "major", 2))
    with pytest.raises(quiver.UnsupportedFeatureError, match="format 2"):
        quiver.open(d)


def test_a_path_outside_the_table_is_refused(copy_table):
    d = copy_table(compat("format-1.1", "history"))
    _rewrite_manifest(d, 18, lambda mf: setattr(mf.manifest.fragments[0].files[0], "path", "data/../../etc/passwd"))
    with pytest.raises(quiver.CorruptFileError, match="not a valid path"):
        quiver.open(d).to_arrow()


def test_corrupt_files_raise_corrupt_file_error_naming_the_file(copy_table):
    d = copy_table(compat("compressed-1.1", "table"))
    vfile = os.path.join(d, version_path(6))
    data = open(vfile, "rb").read()
    open(vfile, "wb").write(data[: len(data) - 7])
    with pytest.raises(quiver.CorruptFileError) as e:
        quiver.open(d)
    assert version_path(6) in str(e.value) and e.value.path.endswith(version_path(6))
    t = quiver.open(d, version=5)
    frag = next(iter(t._snap.fragments()))
    dpath = os.path.join(d, frag.files[0].path)
    raw = open(dpath, "rb").read()
    open(dpath, "wb").write(raw[:-100])
    with pytest.raises(quiver.CorruptFileError) as e:
        t.to_arrow()
    assert frag.files[0].path in str(e.value)


def test_roaring_array_run_and_bitmap_containers():
    # no-run cookie, one array container {1, 5, 70000 -> second container}
    arr = struct.pack("<II", 12346, 2) + struct.pack("<HHHH", 0, 1, 1, 0) + struct.pack("<II", 0, 0) \
        + struct.pack("<HH", 1, 5) + struct.pack("<H", 4464)
    assert _roaring.decode(arr) == [1, 5, 65536 + 4464]
    # run cookie, one run container [10, 14]
    run = struct.pack("<I", 12347 | (0 << 16)) + bytes([1]) + struct.pack("<HH", 0, 4) + struct.pack("<HHH", 1, 10, 4)
    assert _roaring.decode(run) == [10, 11, 12, 13, 14]
    # bitmap container: 5000 even values
    words = bytearray(8192)
    vals = list(range(0, 10000, 2))
    for v in vals:
        words[v // 8] |= 1 << (v % 8)
    bm = struct.pack("<II", 12346, 1) + struct.pack("<HH", 0, len(vals) - 1) + struct.pack("<I", 0) + bytes(words)
    assert _roaring.decode(bm) == vals
    with pytest.raises(_roaring.RoaringError):
        _roaring.decode(arr[:-1])


def test_storage_options_use_the_java_adapter_names():
    from quiver._store import Store
    s = Store("s3://bucket/table", {"s3.endpoint": "http://127.0.0.1:9", "s3.region": "us-east-1",
                                     "s3.access-key-id": "a", "s3.secret-access-key": "b",
                                     "s3.path-style-access": "true"})
    assert s.fs.type_name == "s3" and s.root == "bucket/table"
    with pytest.raises(quiver.QuiverError, match="unknown storage option"):
        Store("s3://bucket/table", {"s3.nope": "1"})
    assert Store("file:///tmp/x").root == "/tmp/x"


def test_azure_endpoints_map_to_pyarrows_path_and_virtual_host_styles():
    from quiver._store import _blob_authority
    # Emulators (Azurite) serve http://host:port/<account>: pyarrow adds the account to a plain authority.
    assert _blob_authority("http://127.0.0.1:10000/devstoreaccount1", "devstoreaccount1") == ("127.0.0.1:10000",
                                                                                             "http")
    # The cloud serves https://<account>.<suffix>: pyarrow prefixes the account to an authority starting with '.'.
    assert _blob_authority("https://acct.blob.core.windows.net", "acct") == (".blob.core.windows.net", "https")
    assert _blob_authority("https://acct.blob.core.chinacloudapi.cn/", "acct") == (".blob.core.chinacloudapi.cn",
                                                                                 "https")
    with pytest.raises(quiver.QuiverError, match="names account 'other' in its path"):
        _blob_authority("http://127.0.0.1:10000/other", "devstoreaccount1")
    with pytest.raises(quiver.QuiverError, match="is not a URL"):
        _blob_authority("127.0.0.1:10000", "devstoreaccount1")
    # The account of a path-style endpoint is taken from it when no option names one.
    from quiver._store import Store
    s = Store("az://container/table", {"azure.endpoint": "http://127.0.0.1:10000/devstoreaccount1",
                                       "azure.account-key": "a2V5"})
    assert s.fs.type_name == "abfs" and s.root == "container/table"


def test_pandas_polars_and_duckdb_over_the_record_batch_reader():
    t = quiver.open(compat("format-1.1", "history"), version=8)
    df = t.to_pandas()
    assert len(df) == t.count_rows()
    pl = pytest.importorskip("polars")
    assert t.to_polars().shape[0] == t.count_rows()
    assert isinstance(t.to_polars(), pl.DataFrame)
    duckdb = pytest.importorskip("duckdb")
    reader = t.to_batches(columns=["id", "val"])  # noqa: F841 (duckdb finds it by name)
    [(n, total)] = duckdb.sql("select count(*), sum(id) from reader").fetchall()
    assert n == t.count_rows()
    assert total == sum(t.to_arrow(columns=["id"]).column("id").to_pylist())


def test_torch_dataset_shards_fragments_across_workers():
    torch = pytest.importorskip("torch")  # noqa: F841
    from quiver.torch import QuiverIterableDataset
    ds = QuiverIterableDataset(compat("format-1.1", "history"), columns=["id"])
    seen = []
    for w in range(3):
        table, ids = ds.shard(w, 3)
        seen.extend(r for b in table.to_batches_of_fragments(ids, columns=["id"]) for r in b.column(0).to_pylist())
    assert sorted(seen) == sorted(quiver.open(compat("format-1.1", "history")).to_arrow(columns=["id"]).column(0).to_pylist())


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_bodies_compressed_by_another_writer_read(copy_table, codec):
    """A data file rewritten by pyarrow with LZ4_FRAME (which Quiver never writes) or ZSTD bodies, its size in
    the manifest updated, reads the same cells."""
    import pyarrow.ipc as ipc
    d = copy_table(compat("compressed-1.1", "table"))
    want = quiver.open(d, version=1).to_arrow().to_pylist()
    mf = manifest_file_pb2.ManifestFile()
    mf.ParseFromString(open(os.path.join(d, version_path(1)), "rb").read()[8:])
    sizes = {}
    for frag in mf.manifest.fragments:
        for df in frag.files:
            path = os.path.join(d, df.path)
            with open(path, "rb") as f:
                r = ipc.open_file(pa.BufferReader(f.read()))
            batches = [r.get_record_batch(i) for i in range(r.num_record_batches)]
            schema = r.schema
            with ipc.new_file(path, schema, options=ipc.IpcWriteOptions(compression=codec)) as w:
                for b in batches:
                    w.write_batch(b)
            sizes[df.path] = os.path.getsize(path)

    def change(m):
        for frag in m.manifest.fragments:
            for df in frag.files:
                df.size_bytes = sizes[df.path]
    _rewrite_manifest(d, 1, change)
    assert quiver.open(d, version=1).to_arrow().to_pylist() == want


def test_fragment_shards_partition_the_version_without_torch():
    t = quiver.open(compat("format-1.2", "history"))
    ids = t.fragment_ids()
    shards = [t.shard_fragment_ids(i, 4) for i in range(4)]
    assert sorted(sum(shards, [])) == sorted(ids)
    rows = [r for s in shards for b in t.to_batches_of_fragments(s, columns=["id"]) for r in b.column(0).to_pylist()]
    assert sorted(rows) == sorted(t.to_arrow(columns=["id"]).column(0).to_pylist())
    assert t.checkout(version=1).version == 1


def test_zone_statistics_skip_record_batches_and_reads_stay_exact():
    # stats-1.1: 10 rows per record batch, 40 per fragment; fragment 3 (rows 120..159) has no overlay
    t = quiver.open(compat("stats-1.1", "table"))
    full = t.to_arrow(with_row_address=True)
    for f in (col("id") == 135, (col("id") >= 150) | (col("id") < 3), col("s.x") > 300):
        got = t.to_arrow(filter=f, with_row_address=True)
        assert_same(got, full.filter(f.to_pyarrow()), repr(f))
    t.to_arrow(filter=col("id") == 135)
    assert t.last_scan_stats.batches_pruned == 3, t.last_scan_stats


def _corrupt_strings(d, how):
    """Rewrites the first data file of format-1.1/checkpointed's latest version (uncompressed, its size in the
    manifest updated) with the first record batch's ``name`` column damaged in a way only full validation sees:
    offsets that go backwards (every one within the data) or bytes that are not UTF-8. Returns the file's path
    relative to the table."""
    import numpy as np
    import pyarrow.ipc as ipc
    t = quiver.open(d)
    frag = next(iter(t._snap.fragments()))
    rel = frag.files[0].path
    path = os.path.join(d, rel)
    with open(path, "rb") as f:
        r = ipc.open_file(pa.BufferReader(f.read()))
    batches = [r.get_record_batch(i) for i in range(r.num_record_batches)]
    b = batches[0]
    i = b.schema.get_field_index("name")
    name = b.column(i)
    assert name.null_count == 0 and len(name) >= 3
    offsets = np.frombuffer(name.buffers()[1], dtype=np.int32)[name.offset:name.offset + len(name) + 1].copy()
    data = bytearray(name.buffers()[2].to_pybytes())
    if how == "offsets":
        offsets[1] = offsets[2] + 1  # 0, 5, 4, ...: each within the data, not monotonic
        assert offsets[1] <= offsets[-1]
    else:
        data[offsets[1]] = 0xFF  # never a UTF-8 byte
    bad = pa.StringArray.from_buffers(len(name), pa.py_buffer(offsets.tobytes()), pa.py_buffer(bytes(data)))
    with pytest.raises(pa.ArrowInvalid):
        bad.validate(full=True)
    bad.validate()  # the cheap checks pass: only full validation finds it
    batches[0] = pa.RecordBatch.from_arrays([bad if j == i else b.column(j) for j in range(b.num_columns)],
                                            schema=b.schema)
    with ipc.new_file(path, r.schema) as w:
        for x in batches:
            w.write_batch(x)
    size = os.path.getsize(path)

    def change(m):
        for fr in m.manifest.fragments:
            for df in fr.files:
                if df.path == rel:
                    df.size_bytes = size
    _rewrite_manifest(d, t.version, change)
    return rel


@pytest.mark.parametrize("how", ["offsets", "utf8"])
def test_strings_that_only_full_validation_rejects_raise_corrupt_file_error(copy_table, how):
    """Every read path (whole batches, a projection, a filter, a take) fully validates what it decodes: bad
    offsets or bytes that are not UTF-8 in a data file raise CorruptFileError naming it, never reach a kernel."""
    d = copy_table(compat("format-1.1", "checkpointed"))
    rel = _corrupt_strings(d, how)
    t = quiver.open(d)
    first = next(iter(t._snap.fragments()))
    reads = {
        "full": lambda: t.to_arrow(),
        "projection": lambda: t.to_arrow(columns=["name"]),
        "projection with id": lambda: t.to_arrow(columns=["id", "name"], with_row_address=True),
        "filter": lambda: t.to_arrow(columns=["name"], filter=col("id") >= 0),
        "take": lambda: t.take([first.id << 32]),
    }
    for what, read in reads.items():
        with pytest.raises(quiver.CorruptFileError) as e:
            read()
        assert rel in str(e.value) and e.value.path.endswith(rel), (what, str(e.value))
    assert t.to_arrow(columns=["id", "v"]).num_rows == t.count_rows()  # the other columns still read


def test_projections_of_top_level_columns_equal_the_full_read():
    """A read of top-level atomic columns takes the record batches as they are (no assembly); it must give what
    the general assembly gives, deletions, overlays, missing fields and row addresses included."""
    for table in TABLES:
        for info in quiver.open(table).versions():
            t = quiver.open(table, version=info.version)
            full = t.to_arrow(with_row_address=True)
            names = [f.name for f in t.schema if not pa.types.is_struct(f.type)]
            for cols in (names, names[::-1], names[:1]):
                got = t.to_arrow(columns=cols, with_row_address=True)
                assert_same(got, full.select(cols + ["_rowaddr"]), "%s v%d %s" % (table, info.version, cols))
            empty = t.to_arrow(columns=[])
            assert empty.num_rows == t.count_rows() and empty.num_columns == 0
            assert t.to_arrow(columns=[], with_row_address=True).column("_rowaddr") == full.column("_rowaddr")


def _lineage_by_id(t):
    rows = t.to_arrow(columns=["id"], with_row_address=True)
    lin = t.row_lineage()
    by_addr = {a: (i, c, u) for a, i, c, u in zip(lin.column("_rowaddr").to_pylist(), lin.column("_rowid").to_pylist(),
                                                  lin.column("_row_created_at_version").to_pylist(),
                                                  lin.column("_row_last_updated_at_version").to_pylist())}
    assert len(by_addr) == rows.num_rows == t.count_rows()
    return {k: by_addr[a] for k, a in zip(rows.column("id").to_pylist(), rows.column("_rowaddr").to_pylist())}


def test_row_lineage_of_the_format_14_fixture_follows_its_history():
    # compat/rowids-1.4/README.md: ids 0..29 at v1, 30..39 at v2, 0..4 deleted at v3, 10 and 35 updated at v4,
    # 20 and 21 merged (updated) and 100..102 inserted with ids 40..42 at v5, compaction at v6, 101 deleted at v7.
    t7 = quiver.open(compat("rowids-1.4", "table"))
    assert t7.version == 7
    got = _lineage_by_id(t7)
    assert got[5] == (5, 1, 1)
    assert got[10] == (10, 1, 4)
    assert got[35] == (35, 2, 4)
    assert got[20] == (20, 1, 5) and got[21] == (21, 1, 5)
    assert got[100] == (40, 5, 5) and got[102] == (42, 5, 5)
    assert 101 not in got and 0 not in got
    v1 = _lineage_by_id(quiver.open(compat("rowids-1.4", "table"), version=1))
    assert v1 == {i: (i, 1, 1) for i in range(30)}


def test_row_lineage_of_a_table_without_row_ids_is_refused():
    t = quiver.open(compat("format-1.1", "history"))
    with pytest.raises(quiver.QuiverError, match="has no stable row ids"):
        t.row_lineage()


def _rows_by_rowid(t, columns):
    """{row id: row dict of ``columns``} of a version (its lineage joined with its rows by address)."""
    rows = t.to_arrow(columns=columns, with_row_address=True)
    lin = t.row_lineage()
    rid = dict(zip(lin.column("_rowaddr").to_pylist(), lin.column("_rowid").to_pylist()))
    out = {}
    for r in rows.to_pylist():
        out[rid[r.pop("_rowaddr")]] = r
    return out


def test_change_feed_replayed_on_every_version_gives_every_later_version():
    # The fixture's history (compat/rowids-1.4/README.md) has inserts, deletes, overlay updates, a merge-insert,
    # a compaction and a delete after it: replaying the feed from a on a's rows by _rowid must give b's rows.
    t = quiver.open(compat("rowids-1.4", "table"))
    names = [f.name for f in t.schema]
    for a in range(1, 7):
        for b in range(a + 1, 8):
            state = _rows_by_rowid(t.checkout(a), names)
            feed = t.changes(a, b)
            assert feed.schema.names == names + ["_change_type", "_commit_version", "_commit_timestamp", "_rowid"]
            for c in feed.to_pylist():
                kind, rid, v = c.pop("_change_type"), c.pop("_rowid"), c.pop("_commit_version")
                ts = c.pop("_commit_timestamp")
                assert a < v <= b and ts == t.checkout(v).timestamp
                if kind == "insert":
                    assert rid not in state, (a, b, rid)
                    state[rid] = c
                elif kind == "delete":
                    assert state.pop(rid) == c, (a, b, rid)
                elif kind == "update_preimage":
                    assert state[rid] == c, (a, b, rid)
                else:
                    assert kind == "update_postimage" and rid in state
                    state[rid] = c
            assert state == _rows_by_rowid(t.checkout(b), names), (a, b)


def test_change_feed_of_the_fixture_names_each_change():
    t = quiver.open(compat("rowids-1.4", "table"))
    kinds = lambda a, b: [(r["_commit_version"], r["_change_type"], r["_rowid"])  # noqa: E731
                          for r in t.changes(a, b, columns=["id"]).to_pylist()]
    assert kinds(1, 2) == [(2, "insert", i) for i in range(30, 40)]
    assert kinds(2, 3) == [(3, "delete", i) for i in range(5)]
    assert kinds(3, 4) == [(4, "update_preimage", 10), (4, "update_postimage", 10),
                           (4, "update_preimage", 35), (4, "update_postimage", 35)]
    assert kinds(5, 6) == []  # a compaction changes no row
    assert kinds(6, 7) == [(7, "delete", 41)]
    v4 = t.changes(3, 4, columns=["name"]).to_pylist()
    assert [r["name"] for r in v4][1::2] == ["upd", "upd"] and "upd" not in [r["name"] for r in v4][0::2]
    only = t.changes(1, 7, columns=["id"], filter=col("id") >= 100)
    assert sorted(set(only.column("id").to_pylist())) == [100, 101, 102]
    assert t.changes(1, 7, limit=3).num_rows == 3
    assert t.changes(2, 3).num_rows == t.changes(2, 3, columns=[]).num_rows == 5


def test_change_feed_errors_are_typed():
    t = quiver.open(compat("rowids-1.4", "table"))
    with pytest.raises(quiver.QuiverError, match="from >= 1, to > from"):
        t.changes(3, 3)
    with pytest.raises(quiver.VersionNotFoundError, match="versions 8-9 are gone"):
        t.changes(6, 9)
    with pytest.raises(quiver.QuiverError, match="not among the returned columns"):
        t.changes(1, 2, columns=["id"], filter=col("name") == "x")
    old = quiver.open(compat("format-1.1", "history"))
    with pytest.raises(quiver.QuiverError, match="has no stable row ids"):
        old.changes(1, 2)


def _spill_lineage(table_dir, version):
    """Rewrites ``version`` of a copied rowids-1.4 table as a writer with lineage files would have written it: every
    fragment's lineage moved to ``_lineage/{n}.lin`` (envelope QVN1, docs/format.md section 14.1), the reader and
    writer feature ``lineage-files`` set. Returns the lineage files' paths."""
    from quiver._envelope import crc32c
    from quiver._proto import manifest_file_pb2, table_pb2

    def envelope(magic, payload):
        return magic + crc32c(payload).to_bytes(4, "big") + payload

    vpath = os.path.join(table_dir, "_versions", "%019d.manifest" % (2 ** 63 - 1 - version))
    mf = manifest_file_pb2.ManifestFile()
    mf.ParseFromString(open(vpath, "rb").read()[8:])
    root_path = os.path.join(table_dir, mf.root.path)
    root = table_pb2.Manifest()
    root.ParseFromString(open(root_path, "rb").read()[8:])
    os.makedirs(os.path.join(table_dir, "_lineage"), exist_ok=True)
    written = []
    for frag in root.fragments:
        data = envelope(b"QVN1", frag.lineage.SerializeToString(deterministic=True))
        rel = "_lineage/%d-%d.lin" % (version, frag.id)
        open(os.path.join(table_dir, rel), "wb").write(data)
        frag.ClearField("lineage")
        frag.lineage_file.path, frag.lineage_file.size_bytes = rel, len(data)
        frag.lineage_file.crc32c = int.from_bytes(data[4:8], "big")
        written.append(rel)
    for m in (root, mf.manifest):
        m.reader_features.append("lineage-files")
        m.writer_features.append("lineage-files")
    rdata = envelope(b"QVR1", root.SerializeToString(deterministic=True))
    open(root_path, "wb").write(rdata)
    mf.root.size_bytes = len(rdata)
    open(vpath, "wb").write(envelope(b"QVM1", mf.SerializeToString(deterministic=True)))
    return written


def test_lineage_files_read_as_the_inline_lineage(copy_table):
    src = compat("rowids-1.4", "table")
    dst = copy_table(src)
    for v in (6, 7):
        assert _spill_lineage(dst, v)
    spilled, inline = quiver.open(dst), quiver.open(src)
    for v in range(1, 8):
        assert _lineage_by_id(spilled.checkout(v)) == _lineage_by_id(inline.checkout(v)), v
    for a, b in [(5, 6), (5, 7), (6, 7), (1, 7)]:
        assert spilled.changes(a, b).to_pylist() == inline.changes(a, b).to_pylist(), (a, b)


@pytest.mark.parametrize("damage, message", [("truncate", "truncated or replaced"), ("flip", "checksum mismatch"),
                                             ("remove", "is missing")])
def test_a_damaged_lineage_file_is_a_corrupt_file_error_naming_it(copy_table, damage, message):
    dst = copy_table(compat("rowids-1.4", "table"))
    rel = _spill_lineage(dst, 7)[0]
    path = os.path.join(dst, rel)
    data = open(path, "rb").read()
    if damage == "truncate":
        open(path, "wb").write(data[:-2])
    elif damage == "flip":
        open(path, "wb").write(data[:-1] + bytes([data[-1] ^ 0x55]))
    else:
        os.remove(path)
    t = quiver.open(dst)
    assert t.to_arrow(columns=["id"]).num_rows > 0  # rows read without the lineage
    with pytest.raises(quiver.CorruptFileError, match=message) as e:
        t.row_lineage()
    assert rel in str(e.value)


def test_the_lineage_files_fixture_reads_as_the_inline_one():
    # compat/lineage-files-1.4: rowids-1.4's history written by Java with every changed fragment's lineage spilled.
    spilled, inline = quiver.open(compat("lineage-files-1.4", "table")), quiver.open(compat("rowids-1.4", "table"))
    assert "lineage-files" in spilled._snap.reader_features
    for v in range(1, 8):
        assert _lineage_by_id(spilled.checkout(v)) == _lineage_by_id(inline.checkout(v)), v
    for a in range(1, 7):
        for b in range(a + 1, 8):
            feed = lambda t: t.changes(a, b, columns=["id", "name"]).drop_columns(["_commit_timestamp"])  # noqa: E731
            assert feed(spilled).to_pylist() == feed(inline).to_pylist(), (a, b)  # the tables' commit times differ
