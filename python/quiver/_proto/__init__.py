"""Generated from format-core/src/main/proto/quiver/v1 by python/tools/gen_proto.py; do not edit."""
