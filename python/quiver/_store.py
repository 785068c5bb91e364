"""Table locations: local paths, file://, s3://, gs://, az:// through pyarrow.fs."""
import os
from urllib.parse import urlparse, unquote

import pyarrow.fs as pafs

from .errors import QuiverError

# Option names follow the Java adapters' (format-io-s3, format-io-gcs, format-io-azure; docs/storage.md).
S3_OPTIONS = {
    "s3.endpoint", "s3.region", "s3.path-style-access", "s3.access-key-id", "s3.secret-access-key",
    "s3.session-token", "s3.connection-timeout-ms", "s3.socket-timeout-ms", "s3.max-retries",
}
GCS_OPTIONS = {"gcs.endpoint", "gcs.project-id", "gcs.no-auth", "gcs.credentials-file", "gcs.access-token",
               "gcs.read-timeout-ms"}
AZURE_OPTIONS = {"azure.account-name", "azure.account-key", "azure.endpoint", "azure.sas-token",
                 "azure.connection-string"}


def _bool(v):
    return str(v).strip().lower() in ("1", "true", "yes")


def _check(options, known, scheme):
    for k in options:
        if k not in known:
            raise QuiverError("unknown storage option '%s' for %s:// (known: %s)" % (k, scheme, ", ".join(sorted(known))))


def _s3(bucket, options):
    _check(options, S3_OPTIONS, "s3")
    kw = {}
    endpoint = options.get("s3.endpoint")
    if endpoint:
        u = urlparse(endpoint)
        if u.scheme in ("http", "https"):
            kw["endpoint_override"] = u.netloc + u.path.rstrip("/")
            kw["scheme"] = u.scheme
        else:
            kw["endpoint_override"] = endpoint
    if "s3.region" in options:
        kw["region"] = options["s3.region"]
    if "s3.access-key-id" in options:
        kw["access_key"] = options["s3.access-key-id"]
        kw["secret_key"] = options.get("s3.secret-access-key")
    if "s3.session-token" in options:
        kw["session_token"] = options["s3.session-token"]
    if "s3.path-style-access" in options:
        kw["force_virtual_addressing"] = not _bool(options["s3.path-style-access"])
    if "s3.connection-timeout-ms" in options:
        kw["connect_timeout"] = int(options["s3.connection-timeout-ms"]) / 1000.0
    if "s3.socket-timeout-ms" in options:
        kw["request_timeout"] = int(options["s3.socket-timeout-ms"]) / 1000.0
    if "s3.max-retries" in options:
        kw["retry_strategy"] = pafs.AwsStandardS3RetryStrategy(max_attempts=int(options["s3.max-retries"]) + 1)
    return pafs.S3FileSystem(**kw)


def _gcs(options):
    _check(options, GCS_OPTIONS, "gs")
    kw = {}
    endpoint = options.get("gcs.endpoint")
    if endpoint:
        u = urlparse(endpoint)
        kw["endpoint_override"] = u.netloc if u.scheme else endpoint
        if u.scheme:
            kw["scheme"] = u.scheme
    if "gcs.project-id" in options:
        kw["project_id"] = options["gcs.project-id"]
    if _bool(options.get("gcs.no-auth", "false")):
        kw["anonymous"] = True
    if "gcs.access-token" in options:
        import datetime
        kw["access_token"] = options["gcs.access-token"]
        kw["credential_token_expiration"] = datetime.datetime.now() + datetime.timedelta(hours=1)
    if "gcs.credentials-file" in options:
        os.environ.setdefault("GOOGLE_APPLICATION_CREDENTIALS", options["gcs.credentials-file"])
    if "gcs.read-timeout-ms" in options:
        kw["retry_time_limit"] = None
    return pafs.GcsFileSystem(**kw)


def _azure(account_from_uri, options):
    _check(options, AZURE_OPTIONS, "az")
    conn = options.get("azure.connection-string")
    kw = {}
    if conn:
        parts = dict(p.split("=", 1) for p in conn.split(";") if "=" in p)
        kw["account_name"] = parts.get("AccountName")
        if "AccountKey" in parts:
            kw["account_key"] = parts["AccountKey"]
    endpoint = options.get("azure.endpoint") or (parts.get("BlobEndpoint") if conn else None)
    account = (options.get("azure.account-name") or account_from_uri or kw.get("account_name")
               or _account_in_path(endpoint))
    if not account:
        raise QuiverError("az:// needs an account: az://container@account/path or the option azure.account-name")
    kw["account_name"] = account
    if "azure.account-key" in options:
        kw["account_key"] = options["azure.account-key"]
    if "azure.sas-token" in options:
        kw["sas_token"] = options["azure.sas-token"].lstrip("?")
    if endpoint:
        authority, scheme = _blob_authority(endpoint, account)
        kw.update(blob_storage_authority=authority, blob_storage_scheme=scheme, dfs_storage_authority=authority,
                  dfs_storage_scheme=scheme)
    return pafs.AzureFileSystem(**kw)


def _account_in_path(endpoint):
    """The account of a path-style endpoint (``http://127.0.0.1:10000/devstoreaccount1``), else None."""
    if not endpoint:
        return None
    path = urlparse(endpoint).path.strip("/")
    return path.split("/")[0] if path else None


def _blob_authority(endpoint, account):
    """Maps the Java adapter's blob endpoint to pyarrow's (authority, scheme).

    pyarrow builds ``scheme://authority/account`` (path style, as emulators serve) unless the authority starts
    with '.', when it builds ``scheme://account.authority`` (the cloud's virtual-host style).
    """
    u = urlparse(endpoint)
    if not u.netloc:
        raise QuiverError("azure.endpoint %r is not a URL such as https://account.blob.core.windows.net or"
                          " http://127.0.0.1:10000/devstoreaccount1" % endpoint)
    scheme = u.scheme or "https"
    in_path = _account_in_path(endpoint)
    if in_path is not None:
        if in_path != account or u.path.strip("/") != in_path:
            raise QuiverError("azure.endpoint %r names account %r in its path, but the account is %r; a path-style"
                              " endpoint is http://host:port/<account> and nothing more" % (endpoint, in_path, account))
        return u.netloc, scheme
    host = u.netloc
    if host.lower().startswith(account.lower() + "."):
        return host[len(account):], scheme
    return host, scheme


class Store:
    """Reads of one table's files: ``fs`` and ``root`` (the table prefix inside fs, no trailing slash)."""

    def __init__(self, uri, options=None):
        options = dict(options or {})
        self.options = options or None
        self.uri = uri
        u = urlparse(uri) if "://" in uri else None
        if u is None or u.scheme == "" or (len(u.scheme) == 1 and os.name == "nt"):
            if options:
                raise QuiverError("storage options are not taken for local paths")
            self.fs = pafs.LocalFileSystem()
            self.root = os.path.abspath(uri).rstrip("/") or "/"
        elif u.scheme == "file":
            if options:
                raise QuiverError("storage options are not taken for file:// locations")
            self.fs = pafs.LocalFileSystem()
            self.root = unquote(u.path).rstrip("/") or "/"
        elif u.scheme in ("s3", "s3a"):
            self.fs = _s3(u.netloc, options)
            self.root = (u.netloc + u.path).rstrip("/")
        elif u.scheme in ("gs", "gcs"):
            self.fs = _gcs(options)
            self.root = (u.netloc + u.path).rstrip("/")
        elif u.scheme in ("az", "abfs", "abfss"):
            container, _, account = u.netloc.partition("@")
            if account.endswith(".dfs.core.windows.net") or account.endswith(".blob.core.windows.net"):
                account = account.split(".")[0]
            self.fs = _azure(account, options)
            self.root = (container + u.path).rstrip("/")
        else:
            raise QuiverError("unsupported location scheme '%s://' (local paths, file://, s3://, gs://, az://)"
                              % u.scheme)

    def full(self, rel):
        return self.root + "/" + rel

    def location(self, rel):
        """A file's location as errors name it."""
        return self.uri.rstrip("/") + "/" + rel

    def read(self, rel):
        with self.fs.open_input_stream(self.full(rel)) as f:
            return f.read()

    def open_random(self, rel):
        return self.fs.open_input_file(self.full(rel))

    def list_names(self, rel_dir):
        """Base names of the files directly under rel_dir (empty if it does not exist)."""
        sel = pafs.FileSelector(self.full(rel_dir), allow_not_found=True, recursive=False)
        return [os.path.basename(i.path) for i in self.fs.get_file_info(sel) if i.type == pafs.FileType.File]

    def exists(self, rel):
        return self.fs.get_file_info(self.full(rel)).type == pafs.FileType.File
