"""The metadata envelope (docs/format.md §2): 4-byte magic, big-endian CRC-32C of the payload, payload."""
from .errors import CorruptFileError


def _table():
    poly = 0x82F63B78
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _table()


def crc32c(data):
    crc = 0xFFFFFFFF
    t = _TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


try:  # an optional accelerator, never required
    import google_crc32c as _g  # type: ignore

    def crc32c(data):  # noqa: F811
        return _g.value(bytes(data))
except ImportError:  # pragma: no cover
    pass


def open_envelope(data, magic, path, what):
    """Verifies magic and checksum; returns the payload bytes. Raises CorruptFileError naming ``path``."""
    if len(data) < 8:
        raise CorruptFileError(path, "%d bytes: too short for a %s file (truncated)" % (len(data), what))
    if data[:4] != magic:
        raise CorruptFileError(path, "expected magic %s for a %s file, found 0x%s"
                               % (magic.decode("ascii"), what, bytes(data[:4]).hex()))
    expected = int.from_bytes(data[4:8], "big")
    payload = memoryview(data)[8:]
    actual = crc32c(payload)
    if actual != expected:
        raise CorruptFileError(path, "checksum mismatch (expected CRC-32C %x, computed %x): the file is truncated"
                               " or damaged" % (expected, actual))
    return bytes(payload)


def parse(message_cls, data, magic, path, what):
    payload = open_envelope(data, magic, path, what)
    msg = message_cls()
    try:
        msg.ParseFromString(payload)
    except Exception as e:  # google.protobuf.message.DecodeError
        raise CorruptFileError(path, "the %s payload does not decode: %s" % (what, e)) from e
    return msg
