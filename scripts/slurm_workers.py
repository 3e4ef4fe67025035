"""Dask workers for a sweep as SLURM batch jobs (dask-jobqueue's SLURMCluster): the README's
SLURM recipe, and what its opt-in test (tests/test_slurm.py) runs.

    pip install -e '.[slurm]'
    python scripts/slurm_workers.py --queue compute --account my-project --jobs 4 --cores 16 \\
        --memory 64GB --walltime 02:00:00 --exclusive \\
        --prologue 'cd /shared/puzzle-bench' --prologue 'source .venv/bin/activate'
    # once it prints the scheduler's address (every worker has joined), on the same host:
    bench run --suite all --executor dask --scheduler tcp://HEAD-NODE:PORT

Each job runs ``--cores`` single-threaded workers (one per core: each run is measured alone
on its core), started by the job script dask-jobqueue writes (``python -m
distributed.cli.dask_worker``; the prologue puts it in the project's environment, which every
node must see at the same path). The scheduler runs in this process and the workers stop
with it: at end of input (Enter, Ctrl-D) or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue", required=True, help="the SLURM partition")
    parser.add_argument("--account", help="the SLURM account to charge")
    parser.add_argument("--jobs", type=int, default=1, help="batch jobs (nodes) to start")
    parser.add_argument("--cores", type=int, required=True, help="cores (= workers) per job")
    parser.add_argument("--memory", required=True, help="memory per job, e.g. 64GB")
    parser.add_argument("--walltime", default="02:00:00", help="per job, HH:MM:SS")
    parser.add_argument("--exclusive", action="store_true", help="no other job on the nodes")
    parser.add_argument("--prologue", action="append", default=[], help="job script line")
    parser.add_argument("--host", help="the scheduler's listening host (default: Dask's)")
    parser.add_argument("--log-directory", help="where the jobs' output goes")
    parser.add_argument("--wait", type=float, default=600, help="seconds to wait for workers")
    args = parser.parse_args()

    try:
        from dask_jobqueue import SLURMCluster
        from distributed import Client
    except ModuleNotFoundError as err:  # the slurm extra is not installed: say what to install
        print(f"error: {err.name} is not installed: pip install -e '.[slurm]' (dask-jobqueue "
              "and dask[distributed], the slurm extra)", file=sys.stderr)  # fmt: skip
        return 2

    cluster = SLURMCluster(
        queue=args.queue,
        account=args.account,
        cores=args.cores,
        processes=args.cores,  # one single-threaded worker per core
        memory=args.memory,
        walltime=args.walltime,
        job_extra_directives=["--exclusive"] if args.exclusive else [],
        job_script_prologue=args.prologue,
        scheduler_options={"host": args.host} if args.host else {},
        log_directory=args.log_directory,
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        cluster.scale(jobs=args.jobs)
        with Client(cluster) as client:
            client.wait_for_workers(args.jobs * args.cores, timeout=args.wait)
        print(cluster.scheduler_address, flush=True)
        print("workers up; press Enter (or end the input) to stop them", file=sys.stderr)
        sys.stdin.readline()
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
