"""Portable-format RoaringBitmap decoding (the format of deletion files and overlay coverage)."""
import struct

import pyarrow as pa
import pyarrow.compute as pc

_SERIAL_COOKIE_NO_RUN = 12346
_SERIAL_COOKIE = 12347
_NO_OFFSET_THRESHOLD = 4


class RoaringError(ValueError):
    pass


def decode(data):
    """Returns the set's values as a sorted, duplicate-free list of ints. Raises RoaringError if malformed."""
    data = bytes(data)
    if len(data) == 0:
        raise RoaringError("empty bitmap bytes")
    try:
        return _decode(data)
    except (struct.error, IndexError) as e:
        raise RoaringError("truncated bitmap: %s" % e) from e


def _decode(data):
    pos = 0
    cookie, = struct.unpack_from("<I", data, pos)
    pos += 4
    run_bitmap = None
    if cookie & 0xFFFF == _SERIAL_COOKIE:
        size = (cookie >> 16) + 1
        nbytes = (size + 7) // 8
        run_bitmap = data[pos:pos + nbytes]
        if len(run_bitmap) != nbytes:
            raise RoaringError("truncated run bitmap")
        pos += nbytes
        has_offsets = size >= _NO_OFFSET_THRESHOLD
    elif cookie == _SERIAL_COOKIE_NO_RUN:
        size, = struct.unpack_from("<I", data, pos)
        pos += 4
        has_offsets = True
    else:
        raise RoaringError("unknown cookie %d" % cookie)
    if size > 65536:
        raise RoaringError("%d containers" % size)
    keys = []
    cards = []
    for _ in range(size):
        k, c = struct.unpack_from("<HH", data, pos)
        pos += 4
        keys.append(k)
        cards.append(c + 1)
    if has_offsets:
        pos += 4 * size
    out = []
    last_key = -1
    for i in range(size):
        key = keys[i]
        if key <= last_key:
            raise RoaringError("container keys not ascending")
        last_key = key
        base = key << 16
        is_run = run_bitmap is not None and (run_bitmap[i // 8] >> (i % 8)) & 1
        if is_run:
            nruns, = struct.unpack_from("<H", data, pos)
            pos += 2
            runs = struct.unpack_from("<%dH" % (2 * nruns), data, pos)
            pos += 4 * nruns
            for j in range(nruns):
                start = base + runs[2 * j]
                out.extend(range(start, start + runs[2 * j + 1] + 1))
        elif cards[i] <= 4096:
            vals = struct.unpack_from("<%dH" % cards[i], data, pos)
            pos += 2 * cards[i]
            out.extend(base + v for v in vals)
        else:
            words = data[pos:pos + 8192]
            if len(words) != 8192:
                raise RoaringError("truncated bitmap container")
            pos += 8192
            bits = pa.Array.from_buffers(pa.bool_(), 65536, [None, pa.py_buffer(words)])
            idx = pc.indices_nonzero(bits).to_pylist()
            out.extend(base + v for v in idx)
    if pos != len(data):
        raise RoaringError("%d trailing bytes" % (len(data) - pos))
    for a, b in zip(out, out[1:]):
        if a >= b:
            raise RoaringError("values not ascending")
    return out
