#!/usr/bin/env python3
"""What ROOT can check of a TTree lanes writes, per compression setting: each basket's bytes as the file stores them.

    .venv/bin/python -m lanes.tools.basket_checks [--events 50,1000] [--json OUT]

For each setting of the `root` output's compression= and level= (zstd-5, the default; lz4-4; zlib-1; zlib-5; none),
lanes writes the first N events of the NanoAOD file (repeat=, for more events than it holds), and uproot (an
independent reader) reads the header of every basket of every branch in the file:

    raw       stored as it is: compression did not shrink it (ROOT then keeps it raw) or level=0 - no checksum at
              all, so a damaged byte is a damaged value
    ZL        zlib: the stream ends in an Adler-32 of the uncompressed bytes, which inflate checks
    L4        lz4: ROOT's header holds an XXH64 of the compressed bytes, which ROOT checks before decompressing
    ZS        zstd: checked only if the zstd frame's Content_Checksum_flag is set; ROOT does not set it, so damage is
              seen only where zstd's decoding fails on it (the damaged-file sweep measures how often it does not)

Printed: per setting and N, the baskets and bytes of each kind, and the share that no checksum covers. The RNTuple
output needs no such table: its pages carry an XXH3 checksum whatever the compression (ROOT's default,
RNTupleWriteOptions::SetEnablePageChecksums), and its header and footer envelopes one each.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import uproot

REPO = Path(__file__).resolve().parents[3]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
NANO = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
SETTINGS = {"zstd-5": "compression=zstd,level=5", "lz4-4": "compression=lz4,level=4",
            "zlib-1": "compression=zlib,level=1", "zlib-5": "compression=zlib,level=5", "none": "level=0"}


def kind_of(data, seek):
    """The kind of the basket whose key begins at `seek` in `data` (bytes of the file)."""
    nbytes, _, objlen, _, keylen = struct.unpack_from(">ihiIh", data, seek)
    if nbytes - keylen == objlen:
        return "raw", nbytes
    algorithm = data[seek + keylen:seek + keylen + 2]
    if algorithm == b"ZS":
        descriptor = data[seek + keylen + 9 + 4]  # after ROOT's 9-byte header, the zstd frame's 4-byte magic
        return ("ZS+checksum" if descriptor & 0x04 else "ZS"), nbytes
    return algorithm.decode(errors="replace"), nbytes


def baskets(path):
    """Counter of basket kinds, and of their bytes, in the TTree Events of `path`."""
    data = path.read_bytes()
    counts, sizes = Counter(), Counter()
    with uproot.open(path) as file:
        for branch in file["Events"].itervalues(recursive=True):
            seeks = branch.member("fBasketSeek")[:branch.num_baskets]
            for seek in seeks:
                kind, nbytes = kind_of(data, int(seek))
                counts[kind] += 1
                sizes[kind] += nbytes
    return counts, sizes


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", default="50,1000", help="event counts (comma-separated)")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="lanes-baskets-") as directory:
        for events in options.events.split(","):
            for name, setting in SETTINGS.items():
                path = Path(directory) / f"{name}-{events}.root"
                subprocess.run([str(LANES), "run", "-t", "1", "-n", events, "--source", f"root:file={NANO},repeat=50",
                                "--output", f"root:file={path},{setting}"], check=True, capture_output=True,
                               cwd=directory, stdin=subprocess.DEVNULL)
                counts, sizes = baskets(path)
                total, total_bytes = sum(counts.values()), sum(sizes.values())
                rows.append({"setting": name, "events": int(events), "baskets": dict(counts), "bytes": dict(sizes),
                             "unchecked_baskets": (counts["raw"] + counts["ZS"]) / total,
                             "raw_baskets": counts["raw"] / total, "raw_bytes": sizes["raw"] / total_bytes})
    print("| setting | events | baskets by kind | raw (no checksum): baskets, bytes |")
    print("| --- | --- | --- | --- |")
    for row in rows:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(row["baskets"].items()))
        print(f"| {row['setting']} | {row['events']} | {kinds} | {row['raw_baskets']:.1%}, {row['raw_bytes']:.1%} |")
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
