"""An independent reader of the pds format, written from the byte layout in docs/formats.md (and PdsFormat.h):
the header, then each record's place, ids, checksum (XXH3-64, by the `xxhash` module that uproot depends on) and
sizes (a codec frame, version 1 or 2, opened with `cramjam`, which uproot depends on too). The tests use it to count
the events a file holds and to find where a record's bytes lie."""

import struct
from dataclasses import dataclass

import cramjam
import xxhash

VERSIONS = (1, 2)  # of the pds format; a version 1 file holds version 1 frames, a version 2 file version 2 frames


@dataclass
class Frame:
    version: int
    algorithm: int  # 0 none, 1 lz4, 2 zstd
    raw_size: int
    checksum_ok: bool
    payload: bytes

    def open(self):
        """The bytes the frame holds."""
        if self.algorithm == 0:
            raw = self.payload
        elif self.algorithm == 1:
            raw = bytes(cramjam.lz4.decompress_block(self.payload, output_len=self.raw_size))
        else:
            raw = bytes(cramjam.zstd.decompress(self.payload))
        assert len(raw) == self.raw_size
        return raw


def read_frame(data):
    """The codec frame that `data` (bytes) is: a tag (version 2: 0x20 | algorithm; version 1: the algorithm), the
    u64 raw size, the u64 checksum (version 2: XXH3-64 of the 9 bytes before it seeded with the payload's XXH3-64;
    version 1: the payload's XXH3-64), then the payload."""
    tag, raw_size, checksum = struct.unpack_from("<BQQ", data, 0)
    payload = bytes(data[17:])
    payload_checksum = xxhash.xxh3_64_intdigest(payload)
    if tag <= 2:
        return Frame(1, tag, raw_size, checksum == payload_checksum, payload)
    expected = xxhash.xxh3_64_intdigest(bytes(data[:9]), seed=payload_checksum)
    return Frame(tag >> 4, tag & 0x0F, raw_size, checksum == expected, payload)


@dataclass
class Record:
    offset: int  # of its length field
    length: int  # of its body
    ids: list  # (run, luminosityBlock, event) per event
    checksum_ok: bool
    sizes_frame: Frame  # of N x P u32

    @property
    def body(self):
        return self.offset + 8

    @property
    def end(self):
        return self.offset + 8 + self.length + 8


def _string(data, at):
    (size,) = struct.unpack_from("<I", data, at)
    return data[at + 4:at + 4 + size].decode(), at + 4 + size


def read_pds(path):
    """(header, records) of the pds file at `path`: header is a dict of version, serialization, compression,
    compress and products [(label, type)]; asserts the layout holds."""
    data = open(path, "rb").read()
    assert data[:8] == b"LANESPDS"
    version, size = struct.unpack_from("<II", data, 8)
    assert version in VERSIONS, version
    body = data[16:16 + size]
    assert struct.unpack_from("<Q", data, 16 + size)[0] == xxhash.xxh3_64_intdigest(body)
    header = {"version": version}
    at = 0
    for key in ("serialization", "compression", "compress"):
        header[key], at = _string(body, at)
    (count,) = struct.unpack_from("<I", body, at)
    at += 4
    products = []
    for _ in range(count):
        label, at = _string(body, at)
        type_name, at = _string(body, at)
        products.append((label, type_name))
    assert at == len(body)
    header["products"] = products
    records = []
    offset = 16 + size + 8
    while offset < len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        record = data[offset + 8:offset + 8 + length]
        (events,) = struct.unpack_from("<I", record, 0)
        ids = [struct.unpack_from("<IIQ", record, 4 + 16 * i) for i in range(events)]
        at = 4 + 16 * events + 8 * (events + 1)
        (sizes,) = struct.unpack_from("<Q", record, at)
        frame = read_frame(record[at + 8:at + 8 + sizes])
        assert frame.version == version, (frame.version, version)
        (checksum,) = struct.unpack_from("<Q", data, offset + 8 + length)
        records.append(Record(offset, length, ids, checksum == xxhash.xxh3_64_intdigest(record), frame))
        offset += 8 + length + 8
    assert offset == len(data)
    return header, records


def pds_events(path):
    """The event numbers a pds file holds, in file order."""
    return [event for record in read_pds(path)[1] for (_, _, event) in record.ids]
