import json
import os
import shutil

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPAT = os.path.join(REPO, "format-core", "src", "test", "resources", "compat")


def compat(*parts):
    return os.path.join(COMPAT, *parts)


@pytest.fixture
def copy_table(tmp_path):
    """A writable copy of a table directory."""
    def make(src):
        dst = tmp_path / os.path.basename(src.rstrip("/"))
        shutil.copytree(src, dst)
        return str(dst)
    return make


def load_expectations():
    path = os.environ.get("QUIVER_EXPECTATIONS")
    if not path:
        if os.environ.get("QUIVER_REQUIRE_EXPECTATIONS"):
            raise RuntimeError("QUIVER_REQUIRE_EXPECTATIONS is set but QUIVER_EXPECTATIONS names no index")
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


EXPECTATIONS = load_expectations()


def entries(kind=None):
    if EXPECTATIONS is None:
        return []
    return [e for e in EXPECTATIONS["entries"] if kind is None or e["kind"] == kind]


def need_expectations():
    if EXPECTATIONS is None:
        pytest.skip("no Java expectations (set QUIVER_EXPECTATIONS; conformance-tests' PythonReaderIT does)")
