"""Regenerates quiver/_proto/*_pb2.py from format-core/src/main/proto/quiver/v1/*.proto.

Run from anywhere: ``python python/tools/gen_proto.py [OUT_DIR]`` (needs grpcio-tools, a test dependency only).
The generated modules import each other relatively, so they live inside the ``quiver`` package and never
clash with another ``quiver.v1`` on sys.path. ``tests/test_proto_current.py`` regenerates into a temporary
directory and compares with the checked-in files.
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROTO_ROOT = os.path.join(REPO, "format-core", "src", "main", "proto")
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "quiver", "_proto")


def generate(out_dir):
    from grpc_tools import protoc

    protos = sorted(
        os.path.join("quiver", "v1", name)
        for name in os.listdir(os.path.join(PROTO_ROOT, "quiver", "v1"))
        if name.endswith(".proto")
    )
    with tempfile.TemporaryDirectory() as tmp:
        rc = protoc.main(["protoc", "-I" + PROTO_ROOT, "--python_out=" + tmp] + protos)
        if rc != 0:
            raise RuntimeError("protoc failed with exit code %d" % rc)
        os.makedirs(out_dir, exist_ok=True)
        names = []
        for proto in protos:
            name = os.path.basename(proto)[: -len(".proto")] + "_pb2.py"
            with open(os.path.join(tmp, "quiver", "v1", name), encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"^from quiver\.v1 import (\w+) as (\w+)$", r"from . import \1 as \2", text, flags=re.M)
            with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
                f.write(text)
            names.append(name)
        with open(os.path.join(out_dir, "__init__.py"), "w", encoding="utf-8") as f:
            f.write('"""Generated from format-core/src/main/proto/quiver/v1 by python/tools/gen_proto.py; do not edit."""\n')
    return names


if __name__ == "__main__":
    print(generate(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT))
