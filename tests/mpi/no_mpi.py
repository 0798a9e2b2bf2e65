"""A `lanes` built without MPI (tests/CMakeLists.txt builds `lanes_without_mpi` as such a build does): it links
no MPI library (serial HDF5, not parallel HDF5), runs a job, and refuses MPI in one line, exit 2, whether asked by
--mpi or started by a launcher, and so hdf5's parallel=true.

Usage: no_mpi.py BINARY (CTest's `no-mpi`; not a pytest file, so that the `mpi` test does not collect it)."""

import os
import subprocess
import sys


def run(binary, *args, environment=None):
    return subprocess.run([binary, "run", *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, **(environment or {})})


def main(binary):
    needed = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    assert "NEEDED" in needed and "libmpi" not in needed and "openmpi" not in needed, needed
    assert "libhdf5_serial" in needed, needed
    job = run(binary, "-n", "5", "--source", "empty", "--output", "dummy")
    assert job.returncode == 0, job.stderr
    for args, environment, fragment in [
        (["--mpi"], {}, "--mpi: this lanes was built without MPI"),
        ([], {"OMPI_COMM_WORLD_SIZE": "3"}, "started by an MPI launcher, but this lanes was built without MPI"),
        (["--output", "hdf5:file=/tmp/no-mpi.h5,parallel=true"], {},
         "option 'parallel' needs parallel HDF5, and this lanes was built without MPI"),
    ]:
        refused = run(binary, "-n", "5", "--source", "empty", *args, environment=environment)
        lines = refused.stderr.splitlines()
        assert refused.returncode == 2 and len(lines) == 1, refused
        assert lines[0].startswith("lanes: error: ") and fragment in lines[0], lines
    print("a lanes without MPI links no MPI library, runs, and refuses MPI in one line")


if __name__ == "__main__":
    main(sys.argv[1])
