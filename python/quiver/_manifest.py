"""Versions, manifests, roots, segments and segment lists (docs/format.md §1-3, §7, §8, §11)."""
import re

from ._envelope import parse
from ._proto import manifest_file_pb2, refs_pb2, table_pb2
from ._schema import TableSchema
from .errors import CorruptFileError, UnsupportedFeatureError, TableNotFoundError, VersionNotFoundError

MAX = (1 << 63) - 1
FORMAT_MAJOR = 1
SEGMENTED = "segmented-manifest"
SEGMENT_LISTS = "segment-lists"
COMPRESSED = "compressed-data-files"
# Reader and writer features this reader implements (Java: Manifest.KNOWN_FEATURES). The ledger's writer
# feature is known: readers ignore the ledger.
LINEAGE_FILES = "lineage-files"
KNOWN_FEATURES = frozenset({"idempotence-ledger", COMPRESSED, SEGMENTED, SEGMENT_LISTS, LINEAGE_FILES})
DATA_FILE_MAJOR = 1

_VERSION_NAME = re.compile(r"^(\d{19})\.manifest$")
_TAG_NAME = re.compile(r"^([A-Za-z0-9._-]{1,128})\.tag$")


def version_path(v):
    return "_versions/%019d.manifest" % (MAX - v)


def list_versions(store):
    out = []
    for name in store.list_names("_versions"):
        m = _VERSION_NAME.match(name)
        if m:
            v = MAX - int(m.group(1))
            if v >= 1:
                out.append(v)
    return sorted(out)


def check_path(rel, where, prefix=None):
    bad = (not rel or rel.startswith("/") or "\\" in rel or "://" in rel or ":" in rel.split("/")[0]
           or any(seg in ("", ".", "..") for seg in rel.split("/")))
    if bad or (prefix is not None and not rel.startswith(prefix)):
        raise CorruptFileError(where, "names the path '%s', which is not a valid path inside the table" % rel)
    return rel


def check_format(m, location):
    if not m.HasField("format_version"):
        raise CorruptFileError(location, "manifest has no format version")
    fv = m.format_version
    if fv.major != FORMAT_MAJOR:
        raise UnsupportedFeatureError(
            "format %d.%d" % (fv.major, fv.minor),
            "%s is written in Quiver format %d.%d but this reader supports format %d.x; upgrade quiver to read"
            " this table" % (location, fv.major, fv.minor, FORMAT_MAJOR))
    for f in m.reader_features:
        if f not in KNOWN_FEATURES:
            raise UnsupportedFeatureError(
                f, "%s requires reader feature '%s', which this version of quiver does not implement; upgrade"
                   " quiver to read this table" % (location, f))


def read_tag(store, name):
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,128}", name) or name in (".", ".."):
        raise VersionNotFoundError("'%s' is not a valid tag name" % name)
    rel = "_refs/tags/%s.tag" % name
    try:
        data = store.read(rel)
    except FileNotFoundError:
        raise VersionNotFoundError("no tag '%s' in %s" % (name, store.uri)) from None
    tag = parse(refs_pb2.Tag, data, b"QVG1", store.location(rel), "tag")
    return tag.version


def list_tags(store):
    out = {}
    for name in store.list_names("_refs/tags"):
        m = _TAG_NAME.match(name)
        if m and m.group(1) not in (".", ".."):
            out[m.group(1)] = read_tag(store, m.group(1))
    return out


class Snapshot:
    """One committed version: its manifest (or root) and, lazily, its fragments."""

    def __init__(self, store, version):
        self.store = store
        self.version = version
        rel = version_path(version)
        loc = store.location(rel)
        try:
            data = store.read(rel)
        except FileNotFoundError:
            raise VersionNotFoundError("version %d of %s does not exist (removed by a cleanup, or never committed)"
                                       % (version, store.uri)) from None
        mf = parse(manifest_file_pb2.ManifestFile, data, b"QVM1", loc, "manifest")
        if not mf.HasField("manifest"):
            raise CorruptFileError(loc, "the manifest file holds no manifest")
        stub = mf.manifest
        check_format(stub, loc)
        if stub.version != version:
            raise CorruptFileError(loc, "holds version %d, not %d as its name says" % (stub.version, version))
        if mf.HasField("transaction") and stub.transaction_uuid != mf.transaction.uuid:
            raise CorruptFileError(loc, "manifest transaction uuid %s differs from its transaction's %s"
                                   % (stub.transaction_uuid, mf.transaction.uuid))
        segmented = SEGMENTED in stub.reader_features
        if mf.HasField("root") != segmented:
            raise CorruptFileError(loc, "a version file with a root must carry the reader feature '%s' and one"
                                   " with the feature a root" % SEGMENTED)
        self.timestamp_millis = stub.timestamp_millis
        self.reader_features = tuple(stub.reader_features)
        self.segment_refs = []  # direct segments and the segments of lists, in fragment-id order
        self.list_refs = []
        if not segmented:
            if len(stub.segments) or len(stub.segment_lists):
                raise CorruptFileError(loc, "a manifest file lists segments; only a root file may")
            self.manifest = stub
        else:
            root_rel = check_path(mf.root.path, loc)
            want = "_manifests/%d-%s.root" % (version, stub.transaction_uuid)
            root_loc = store.location(root_rel)
            if root_rel != want:
                raise CorruptFileError(loc, "names the root %s; a root of this version must be %s" % (root_rel, want))
            try:
                rdata = store.read(root_rel)
            except FileNotFoundError:
                raise CorruptFileError(root_loc, "the root file of version %d is missing" % version) from None
            if len(rdata) != mf.root.size_bytes:
                raise CorruptFileError(root_loc, "%d bytes, the version file says %d (truncated or replaced)"
                                       % (len(rdata), mf.root.size_bytes))
            root = parse(table_pb2.Manifest, rdata, b"QVR1", root_loc, "root")
            check_format(root, root_loc)
            if root.version != version or root.transaction_uuid != stub.transaction_uuid:
                raise CorruptFileError(root_loc, "holds version %d of transaction %s, the version file says %d of %s"
                                       % (root.version, root.transaction_uuid, version, stub.transaction_uuid))
            if len(root.segment_lists) and SEGMENT_LISTS not in root.reader_features:
                raise CorruptFileError(root_loc, "names segment lists without the reader feature '%s'" % SEGMENT_LISTS)
            self.manifest = root
            self.timestamp_millis = root.timestamp_millis
            entries = [("segment", r) for r in root.segments] + [("list", r) for r in root.segment_lists]
            entries.sort(key=lambda e: e[1].first_fragment_id)
            last = -1
            for kind, ref in entries:
                if ref.first_fragment_id <= last or ref.last_fragment_id < ref.first_fragment_id:
                    raise CorruptFileError(root_loc, "segment ranges are not ascending and disjoint at %s" % ref.path)
                last = ref.last_fragment_id
                if kind == "segment":
                    check_path(ref.path, root_loc, "_segments/")
                    self.segment_refs.append((ref, None))
                else:
                    lst = self._read_list(ref, root_loc)
                    self.list_refs.append(ref)
                    for s in lst.segments:
                        self.segment_refs.append((s, ref))
        self.schema = TableSchema(self.manifest.schema)
        self.config = dict(self.manifest.config)

    def _read_list(self, ref, root_loc):
        rel = check_path(ref.path, root_loc, "_segments/")
        loc = self.store.location(rel)
        try:
            data = self.store.read(rel)
        except FileNotFoundError:
            raise CorruptFileError(loc, "the segment list is missing") from None
        if len(data) != ref.size_bytes:
            raise CorruptFileError(loc, "%d bytes, the root says %d" % (len(data), ref.size_bytes))
        lst = parse(manifest_file_pb2.SegmentList, data, b"QVG1", loc, "segment list")
        segs = list(lst.segments)
        if not segs or len(segs) != ref.segment_count:
            raise CorruptFileError(loc, "holds %d segments, the root says %d" % (len(segs), ref.segment_count))
        last = -1
        for s in segs:
            check_path(s.path, loc, "_segments/")
            if s.segment_count != 0 or s.first_fragment_id <= last:
                raise CorruptFileError(loc, "entries are not ascending, disjoint segments")
            last = s.last_fragment_id
        sums = (sum(s.fragment_count for s in segs), sum(s.physical_rows for s in segs), sum(s.live_rows for s in segs))
        if (segs[0].first_fragment_id, segs[-1].last_fragment_id) != (ref.first_fragment_id, ref.last_fragment_id) \
                or sums != (ref.fragment_count, ref.physical_rows, ref.live_rows):
            raise CorruptFileError(loc, "its segments' ids and row counts differ from the root's summary")
        return lst

    def read_segment(self, ref):
        rel = ref.path
        loc = self.store.location(rel)
        try:
            data = self.store.read(rel)
        except FileNotFoundError:
            raise CorruptFileError(loc, "the segment is missing") from None
        if len(data) != ref.size_bytes:
            raise CorruptFileError(loc, "%d bytes, the root says %d" % (len(data), ref.size_bytes))
        seg = parse(manifest_file_pb2.ManifestSegment, data, b"QVS1", loc, "segment")
        frags = list(seg.fragments)
        ok = (len(frags) >= 1 and len(frags) == ref.fragment_count
              and frags[0].id == ref.first_fragment_id and frags[-1].id == ref.last_fragment_id
              and sum(f.physical_rows for f in frags) == ref.physical_rows
              and sum(f.physical_rows - (f.deletion_file.deleted_rows if f.HasField("deletion_file") else 0)
                      for f in frags) == ref.live_rows
              and all(a.id < b.id for a, b in zip(frags, frags[1:])))
        if not ok:
            raise CorruptFileError(loc, "its fragments (ids, count, physical or live rows) differ from the root's"
                                   " reference")
        return frags

    def segments_and_tail(self):
        """[(SegmentRef, list ref or None)], inline-tail fragments."""
        return self.segment_refs, list(self.manifest.fragments)

    def fragments(self):
        for ref, _ in self.segment_refs:
            yield from self.read_segment(ref)
        yield from self.manifest.fragments
