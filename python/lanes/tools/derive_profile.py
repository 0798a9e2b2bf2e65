#!/usr/bin/env python3
"""Derive a product-size profile for the synthetic source from a ROOT file.

Every top-level branch of the TTree becomes one product; its per-event size is
the uncompressed size of the branch's value in that event (item size x number
of items; a scalar is one item). The synthetic source replays these sizes.

    .venv/bin/python -m lanes.tools.derive_profile INPUT.root OUTPUT.json [--tree Events]

Output (one product per line, so that diffs stay readable):

    {"origin": "file.root", "tree": "Events", "events": 200, "products": [
    {"label": "Jet_pt", "type": "float[]", "bytes_mean": 123.4, "bytes": [128, 96, ...]},
    ...
    ]}
"""

import argparse
import json
import os
import sys

import numpy as np
import uproot


def branch_bytes(branch):
    """Per-event uncompressed bytes of one branch, as a list of ints."""
    interpretation = branch.interpretation
    if isinstance(interpretation, uproot.AsDtype):
        return [interpretation.to_dtype.itemsize] * branch.num_entries
    if isinstance(interpretation, uproot.AsJagged) and isinstance(interpretation.content, uproot.AsDtype):
        itemsize = interpretation.content.to_dtype.itemsize
        values = branch.array(library="np")
        return [itemsize * len(items) for items in values]
    raise ValueError(f"branch '{branch.name}' ({branch.typename}): unsupported interpretation {interpretation}")


def product(branch):
    sizes = branch_bytes(branch)
    return {
        "label": branch.name,
        "type": branch.typename,
        "bytes_mean": round(float(np.mean(sizes)), 2) if sizes else 0.0,
        "bytes": [int(size) for size in sizes],
    }


def derive(path, tree_name):
    with uproot.open(path) as file:
        if tree_name not in file:
            raise ValueError(f"{path}: no TTree '{tree_name}'")
        tree = file[tree_name]
        return {
            "origin": os.path.basename(path),
            "tree": tree_name,
            "events": int(tree.num_entries),
            "products": [product(branch) for branch in tree.branches],
        }


def write(profile, out):
    header = {key: value for key, value in profile.items() if key != "products"}
    out.write(json.dumps(header, separators=(", ", ": "))[:-1] + ', "products": [\n')
    lines = [json.dumps(p, separators=(",", ":")) for p in profile["products"]]
    out.write(",\n".join(lines))
    out.write("\n]}\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="ROOT file to read")
    parser.add_argument("output", help="JSON profile to write")
    parser.add_argument("--tree", default="Events", help="TTree to profile (default: Events)")
    args = parser.parse_args(argv)
    try:
        profile = derive(args.input, args.tree)
    except (OSError, ValueError) as error:
        print(f"derive_profile: {error}", file=sys.stderr)
        return 1
    temporary = args.output + ".tmp"
    with open(temporary, "w") as out:
        write(profile, out)
    os.replace(temporary, args.output)
    print(f"{args.output}: {len(profile['products'])} products, {profile['events']} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
