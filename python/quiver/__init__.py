"""quiver: a pure-Python reader for Quiver tables (pyarrow + protobuf).

    import quiver
    t = quiver.open("/path/to/table")            # or file://, s3://, gs://, az://
    t.to_arrow(columns=["id", "s.x"], filter=quiver.col("id") < 100)
"""
from .errors import CorruptFileError, QuiverError, TableNotFoundError, UnsupportedFeatureError, VersionNotFoundError
from .expr import col
from .table import ScanStats, Table, VersionInfo, open  # noqa: A004

__version__ = "0.1.0"

__all__ = ["open", "col", "Table", "ScanStats", "VersionInfo", "QuiverError", "CorruptFileError",
           "UnsupportedFeatureError", "VersionNotFoundError", "TableNotFoundError"]
