"""What the DSE scripts share: their command line (storage, jobs, Dask, trials, resolution)
and the space they load from the TOML file beside them."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--storage", help="storage URL or .db file (default: beside the space file)")
    p.add_argument("--jobs", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler to evaluate on")
    p.add_argument("--trials", type=int, help="budget of a search (its file's by default)")
    p.add_argument("--resolution", type=int,
                   help="input resolution instead of the file's 224 (a quicker look; a study "
                        "of its own, named <study>-r<N>)")
    return p


def space(toml: str, resolution: int | None):
    from npusim import dse
    s = dse.load_space(HERE / toml)
    if resolution is None:
        return s
    loads = tuple(dataclasses.replace(w, resolution=resolution if w.resolution else None)
                  for w in s.workloads)
    return dataclasses.replace(s, name=f"{s.name}-r{resolution}", workloads=loads)


def run(args, s):
    from npusim import dse
    summary = dse.run_study(s, storage=args.storage, trials=args.trials,
                            jobs=1 if args.dask else args.jobs, dask=args.dask)
    return summary, dse.load(args.storage or s.default_storage(), s.name)
