"""examples/external/dimuon as a Python analyzer: the invariant mass of every opposite-charge pair of muons in
each event, in a histogram of 100 bins from 0 to 200 GeV; the same numbers, in double precision, in the same order
as the C++ output computes them, so that the two histograms agree bin for bin (docs/python.md).

From Python (the job runs it inside lanes):

    import lanes, dimuon
    job = lanes.Job(events=0).source("rntuple", file=DOUBLEMU).analyzer(dimuon.dimuon)
    masses = job.run().analyzers["dimuon"]["mass"]           # a boost_histogram.Histogram

From the command line, its results pickled to mass.pickle:

    lanes run -n 0 --source rntuple:file=data/files/Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root \\
        --module python:function=examples/python/dimuon.py:dimuon,results=mass.pickle
"""

import math

import boost_histogram as bh

import lanes

MUONS = ["Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge"]


def four_vector(pt, eta, phi, mass):
    px, py, pz = pt * math.cos(phi), pt * math.sin(phi), pt * math.sinh(eta)
    return px, py, pz, math.sqrt(px * px + py * py + pz * pz + mass * mass)


def invariant_mass(a, b):
    px, py, pz, e = a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]
    return math.sqrt(max(e * e - px * px - py * py - pz * pz, 0.0))


# boost-histogram rather than hist, which wraps it: a fill costs 3 us rather than 15, once per event
@lanes.analyzer(consumes=MUONS, results={"mass": bh.Histogram(bh.axis.Regular(100, 0, 200)), "pairs": 0})
def dimuon(event, results):
    # tolist(): each float32 exactly as a Python float (a double), as the C++ output widens them
    pt, eta, phi, mass, charge = (event[name].tolist() for name in MUONS)
    muons = [four_vector(*values) for values in zip(pt, eta, phi, mass)]
    masses = [invariant_mass(muons[i], muons[j]) for i in range(len(muons)) for j in range(i + 1, len(muons))
              if charge[i] * charge[j] < 0]
    if masses:
        results["mass"].fill(masses)
        results["pairs"] += len(masses)
