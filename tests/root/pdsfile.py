"""An independent reader of the pds format, written from the byte layout in docs/formats.md (and PdsFormat.h):
the header, then each record's place, ids, checksum (XXH3-64, by the `xxhash` module that uproot depends on) and
sizes (a codec frame, version 1 or 2, opened with `cramjam`, which uproot depends on too), and (version 3) the run
and lumi records. The tests use it to count the events a file holds, to find where a record's bytes lie and to
check the records of runs and lumis."""

import struct
from dataclasses import dataclass

import cramjam
import xxhash

VERSIONS = (1, 2, 3)  # of the pds format; a version 1 file holds version 1 frames, later ones version 2 frames
NOT_PUT = 0xFFFFFFFF  # a product's size in a run or lumi record that lacks it


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


@dataclass
class BlockRecord:
    """A run's or a lumi's record (version 3): its products' bytes by label (None where it lacks one)."""
    level: str  # "lumi" or "run"
    run: int
    luminosityBlock: int  # 0 for a run
    events: int
    products: dict
    checksum_ok: bool


def _string(data, at):
    (size,) = struct.unpack_from("<I", data, at)
    return data[at + 4:at + 4 + size].decode(), at + 4 + size


def _products(body, at):
    (count,) = struct.unpack_from("<I", body, at)
    at += 4
    products = []
    for _ in range(count):
        label, at = _string(body, at)
        type_name, at = _string(body, at)
        products.append((label, type_name))
    return products, at


def _block_record(header, record, checksum_ok):
    """The block record whose body is `record`: u32 0, u32 level (1 lumi, 2 run), u32 run, u32 luminosityBlock,
    u64 events, u32 Q, Q x u32 sizes, then the products' bytes."""
    zero, level, run, lumi, events, count = struct.unpack_from("<IIIIQI", record, 0)
    assert zero == 0 and level in (1, 2), (zero, level)
    name = "lumi" if level == 1 else "run"
    labels = [label for label, _ in header[f"{name}_products"]]
    assert count == len(labels)
    sizes = struct.unpack_from(f"<{count}I", record, 28)
    at = 28 + 4 * count
    products = {}
    for label, size in zip(labels, sizes):
        products[label] = None if size == NOT_PUT else bytes(record[at:at + size])
        at += 0 if size == NOT_PUT else size
    assert at == len(record)
    return BlockRecord(name, run, lumi, events, products, checksum_ok)


def read_pds(path, blocks=None):
    """(header, records) of the pds file at `path`: header is a dict of version, serialization, compression,
    compress, products [(label, type)] and (version 3) lumi_products and run_products; records are the event
    records, and the run and lumi records are appended to `blocks` (a list) if given. Asserts the layout holds."""
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
    header["products"], at = _products(body, at)
    header["lumi_products"], header["run_products"] = [], []
    if version >= 3:
        header["lumi_products"], at = _products(body, at)
        header["run_products"], at = _products(body, at)
    assert at == len(body)
    records = []
    offset = 16 + size + 8
    while offset < len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        record = data[offset + 8:offset + 8 + length]
        (events,) = struct.unpack_from("<I", record, 0)
        (checksum,) = struct.unpack_from("<Q", data, offset + 8 + length)
        if events == 0:  # a run or lumi record, after the last event record
            assert version >= 3
            if blocks is not None:
                blocks.append(_block_record(header, record, checksum == xxhash.xxh3_64_intdigest(record)))
            offset += 8 + length + 8
            continue
        assert blocks is None or not blocks, "an event record after a run or lumi record"
        ids = [struct.unpack_from("<IIQ", record, 4 + 16 * i) for i in range(events)]
        at = 4 + 16 * events + 8 * (events + 1)
        (sizes,) = struct.unpack_from("<Q", record, at)
        frame = read_frame(record[at + 8:at + 8 + sizes])
        assert frame.version == min(version, 2), (frame.version, version)
        records.append(Record(offset, length, ids, checksum == xxhash.xxh3_64_intdigest(record), frame))
        offset += 8 + length + 8
    assert offset == len(data)
    return header, records


def pds_events(path):
    """The event numbers a pds file holds, in file order."""
    return [event for record in read_pds(path)[1] for (_, _, event) in record.ids]
