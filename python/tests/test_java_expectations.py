"""The Python reader against the Java reader's exports (conformance-tests PythonReaderIT writes them)."""
import pyarrow.compute as pc
import pytest

import quiver
from quiver import col

from _compare import assert_same, read_expected
from conftest import EXPECTATIONS, entries, need_expectations

FILTERS = {
    "id < 50": col("id") < 50,
    "val >= 200 | name is null": (col("val") >= 200) | col("name").is_null(),
    "id in (5, 12, 77, 401)": col("id").isin([5, 12, 77, 401]),
    "s.x > 900": col("s.x") > 900,
}


STORES = ("s3", "gs", "az")  # the Java-built journey on S3Proxy, fake-gcs-server and Azurite
REMOTE = [e for s in STORES for e in entries(s)]
REMOTE_FILTER = [e for s in STORES for e in entries(s + "-filter")]


def _id(e):
    return "%s-v%d%s" % (e["name"], e["version"], "-" + e["filter"] if "filter" in e else "")


def _open(e):
    scheme = e["table"].split("://")[0] if "://" in e["table"] else None
    opts = EXPECTATIONS["store_options"].get(scheme) if scheme else None
    return quiver.open(e["table"], version=e["version"], storage_options=opts)


@pytest.mark.parametrize("e", entries("fixture"), ids=_id)
def test_every_fixture_version_reads_cell_for_cell_as_java(e):
    t = _open(e)
    got = t.to_arrow(with_row_address=True)
    assert_same(got, read_expected(e["expected"]), _id(e))
    assert t.count_rows() == e["count_rows"]


@pytest.mark.parametrize("e", entries("journey") + REMOTE, ids=_id)
def test_every_version_of_the_java_built_table_reads_as_java(e):
    t = _open(e)
    assert_same(t.to_arrow(with_row_address=True), read_expected(e["expected"]), _id(e))
    assert t.count_rows() == e["count_rows"]


@pytest.mark.parametrize("e", entries("journey-filter") + REMOTE_FILTER, ids=_id)
def test_filtered_reads_equal_java_and_the_full_read_filtered(e):
    t = _open(e)
    f = FILTERS[e["filter"]]
    got = t.to_arrow(filter=f, with_row_address=True)
    stats = t.last_scan_stats
    assert_same(got, read_expected(e["expected"]), _id(e))
    full = t.to_arrow(with_row_address=True)
    assert_same(got, full.filter(f.to_pyarrow()), _id(e) + " vs full read + filter")
    assert t.count_rows(filter=f) == got.num_rows
    assert stats.rows_returned == got.num_rows
    if e["filter"] in ("id < 50", "id in (5, 12, 77, 401)"):
        assert stats.fragments_pruned + stats.segments_pruned > 0, stats


@pytest.mark.parametrize("e", entries("changes"), ids=lambda e: "changes-v%d-v%d" % (e["from"], e["version"]))
def test_the_change_feed_equals_java_between_every_pair_of_versions(e):
    t = quiver.open(e["table"], version=e["version"])
    assert_same(t.changes(e["from"]), read_expected(e["expected"]), "changes v%d-v%d" % (e["from"], e["version"]))


def test_the_expectations_cover_every_fixture_and_journey():
    need_expectations()
    names = {e["name"] for e in entries("fixture")}
    assert len(names) >= 11, names
    assert len(entries("journey")) >= 8
    assert len(entries("journey-filter")) == len(FILTERS)
    assert len(entries("changes")) == 21  # every pair of the 7 versions of compat/rowids-1.4
    for scheme in STORES:
        assert entries(scheme), "no %s journey exported" % scheme
        assert len(entries(scheme + "-filter")) == len(FILTERS), scheme


def test_tags_and_time_travel_on_the_java_built_table():
    need_expectations()
    e = entries("journey")[-1]
    t = quiver.open(e["table"], tag="after-merge")
    assert t.version == max(x["version"] for x in entries("journey"))
    infos = t.versions()
    mid = infos[len(infos) // 2]
    assert quiver.open(e["table"], timestamp=mid.timestamp).version >= mid.version
    assert quiver.open(e["table"], timestamp=mid.timestamp_millis).version == \
        max(i.version for i in infos if i.timestamp_millis <= mid.timestamp_millis)


def test_take_by_row_address_equals_the_scan_rows():
    need_expectations()
    e = entries("journey")[-1]
    t = _open(e)
    full = t.to_arrow(with_row_address=True)
    addrs = full.column("_rowaddr").to_pylist()
    pick = [addrs[i] for i in (len(addrs) - 1, 0, 17, 3, 17)]
    got = t.take(pick, columns=["id", "s.y", "name"])
    rows = {a: r for a, r in zip(addrs, full.select(["id", "s", "name"]).to_pylist())}
    for a, r in zip(pick, got.to_pylist()):
        assert r["id"] == rows[a]["id"] and r["name"] == rows[a]["name"]
        assert r["s"] == (None if rows[a]["s"] is None else {"y": rows[a]["s"]["y"]})


def _copy_local_journey(copy_table):
    need_expectations()
    e = entries("journey")[-1]
    return copy_table(e["table"])


def test_corrupt_manifest_root_segment_and_data_file_raise_corrupt_file_error(copy_table):
    import os
    from quiver._manifest import version_path
    base = _copy_local_journey(copy_table)
    segmented = [i.version for i in quiver.open(base).versions() if quiver.open(base, version=i.version)._snap.segment_refs]
    assert segmented, "the journey table should have a version with segments"
    v = segmented[-1]
    snap = quiver.open(base, version=v)._snap

    def read():
        return quiver.open(base, version=v).to_arrow()
    read()
    _truncate_and_expect(os.path.join(base, version_path(v)), read)
    roots = [os.path.join(base, "_manifests", n) for n in os.listdir(os.path.join(base, "_manifests"))
             if n.startswith("%d-" % v)]
    assert len(roots) == 1, roots
    _truncate_and_expect(roots[0], read)
    _flip_and_expect(roots[0], read)
    seg = os.path.join(base, snap.segment_refs[0][0].path)
    _truncate_and_expect(seg, read)
    _flip_and_expect(seg, read)
    frag = next(iter(snap.fragments()))
    _truncate_and_expect(os.path.join(base, frag.files[0].path), read)
    if frag.HasField("deletion_file"):
        _truncate_and_expect(os.path.join(base, frag.deletion_file.path), read)


def _truncate_and_expect(path, read):
    import shutil
    keep = path + ".orig"
    shutil.copy(path, keep)
    try:
        with open(path, "r+b") as f:
            size = f.seek(0, 2)
            f.truncate(size // 2)
        with pytest.raises(quiver.CorruptFileError) as info:
            read()
        assert path.split("/")[-1] in str(info.value), str(info.value)
        assert isinstance(info.value, quiver.QuiverError)
    finally:
        shutil.move(keep, path)


def _flip_and_expect(path, read):
    import shutil
    keep = path + ".orig"
    shutil.copy(path, keep)
    try:
        with open(path, "r+b") as f:
            pos = f.seek(0, 2) // 2
            f.seek(pos)
            b = f.read(1)
            f.seek(pos)
            f.write(bytes([b[0] ^ 0xFF]))
        with pytest.raises(quiver.CorruptFileError) as info:
            read()
        assert path.split("/")[-1] in str(info.value), str(info.value)
    finally:
        shutil.move(keep, path)
