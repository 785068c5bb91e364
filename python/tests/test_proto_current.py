"""The checked-in quiver/_proto modules are what protoc generates from format-core's .proto files."""
import filecmp
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))


def test_generated_protobuf_code_is_current(tmp_path):
    pytest.importorskip("grpc_tools", reason="grpcio-tools (a test dependency) is not installed")
    import gen_proto

    names = gen_proto.generate(str(tmp_path))
    checked_in = os.path.join(os.path.dirname(HERE), "quiver", "_proto")
    stale = [n for n in names + ["__init__.py"]
             if not filecmp.cmp(os.path.join(tmp_path, n), os.path.join(checked_in, n), shallow=False)]
    assert not stale, "regenerate with `python python/tools/gen_proto.py`: %s differ from the .proto files" % stale
    extra = set(f for f in os.listdir(checked_in) if f.endswith("_pb2.py")) - set(names)
    assert not extra, "generated modules without a .proto: %s" % sorted(extra)
