"""An independent reader of the pds format, written from the byte layout in docs/formats.md (and PdsFormat.h): the
header, then each record's place, ids and checksum (XXH3-64, by the `xxhash` module that uproot depends on). The
tests use it to count the events a file holds and to find where a record's bytes lie."""

import struct
from dataclasses import dataclass

import xxhash


@dataclass
class Record:
    offset: int  # of its length field
    length: int  # of its body
    ids: list  # (run, luminosityBlock, event) per event
    checksum_ok: bool

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
        (checksum,) = struct.unpack_from("<Q", data, offset + 8 + length)
        records.append(Record(offset, length, ids, checksum == xxhash.xxh3_64_intdigest(record)))
        offset += 8 + length + 8
    assert offset == len(data)
    return header, records


def pds_events(path):
    """The event numbers a pds file holds, in file order."""
    return [event for record in read_pds(path)[1] for (_, _, event) in record.ids]
