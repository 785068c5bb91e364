"""Typed errors of the Quiver reader."""


class QuiverError(Exception):
    """Base class of every error this package raises on purpose."""


class CorruptFileError(QuiverError):
    """A manifest, root, segment, segment list, tag, deletion or data file is truncated or damaged.

    ``path`` is the file's location (as the table's store names it)."""

    def __init__(self, path, reason):
        self.path = path
        self.reason = reason
        super().__init__("%s is corrupt: %s" % (path, reason))


class UnsupportedFeatureError(QuiverError):
    """The table needs a format version or reader feature this reader does not implement.

    ``feature`` names it (a reader feature, or ``format X.Y`` / ``data-file format X.Y``)."""

    def __init__(self, feature, message):
        self.feature = feature
        super().__init__(message)


class VersionNotFoundError(QuiverError):
    """The requested version, tag or time names no committed version that is still present."""


class TableNotFoundError(QuiverError):
    """No committed version of a table at the location."""
