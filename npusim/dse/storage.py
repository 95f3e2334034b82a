"""A study's storage (an Optuna RDB study: SQLite beside the space file by default, any
SQLAlchemy URL Optuna accepts) and its points as one pandas DataFrame (`load`)."""

from __future__ import annotations

import math
from pathlib import Path

from npusim.dse.errors import StudyError

RECORD = "npusim"        # trial user attr: the point's record (status, values, provenance)
SPACE = "npusim_space"   # study user attr: the space it was made from
FINGERPRINT = "npusim_space_sha256"


def storage_url(storage) -> str:
    """A SQLAlchemy URL as given, or a file path as its SQLite URL."""
    text = str(storage)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).resolve()}"


def _sqlite_connect(url: str):
    """A connection factory for a SQLite file in WAL mode with synchronous=NORMAL: a commit
    is then durable against a killed process (the crash this storage must survive), without
    an fsync per commit (Optuna commits some 15 times per point: 13 ms each on this disk)."""
    import sqlite3
    from sqlalchemy.engine import make_url
    path = make_url(url).database

    def connect():
        con = sqlite3.connect(path, timeout=60, check_same_thread=False)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        return con
    return connect


def rdb(storage):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = storage_url(storage)
    kwargs = {}
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        kwargs = {"creator": _sqlite_connect(url)}
    try:
        return optuna.storages.RDBStorage(url, engine_kwargs=kwargs)
    except Exception as e:  # noqa: BLE001 - SQLAlchemy's many errors: say which URL
        raise StudyError(f"storage '{url}' cannot be opened: {type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''}") from None


def open_study(space, storage=None):
    """The study for `space` in `storage` (default: SQLite beside the space file), created on
    first use; a study of that name made from another space is refused."""
    import optuna
    store = rdb(storage or space.default_storage())
    study = optuna.create_study(study_name=space.name, storage=store,
                                directions=space.directions, load_if_exists=True)
    stored = study.user_attrs.get(FINGERPRINT)
    if stored is None:
        study.set_user_attr(SPACE, space.as_dict())
        study.set_user_attr(FINGERPRINT, space.fingerprint())
    elif stored != space.fingerprint():
        where = storage_url(storage or space.default_storage())
        raise StudyError(f"study '{space.name}' in {where} was made from another space "
                         "(attributes, workloads, objectives, constraints, sampler, seed or "
                         "batch differ); rename [study] name or use another --storage to "
                         "start a new one")
    return study


def _study_name(store, study: str | None) -> str:
    import optuna
    names = [s.study_name for s in optuna.get_all_study_summaries(store)]
    if study is not None:
        if study not in names:
            raise StudyError(f"no study '{study}' in the storage; it has: "
                             f"{', '.join(names) or 'none'}")
        return study
    if len(names) != 1:
        raise StudyError(f"the storage has {len(names)} studies ({', '.join(names) or 'none'}); "
                         "name one (--study NAME)")
    return names[0]


def load(storage, study: str | None = None):
    """Every finished point of a study as a DataFrame, one row per point (docs/dse.md lists
    the columns). storage: a SQLAlchemy URL, a .db file, a space file (its default storage
    and study) or a Space."""
    import optuna
    from npusim.dse.space import Space, load_space
    if isinstance(storage, Space) or str(storage).endswith(".toml"):
        space = storage if isinstance(storage, Space) else load_space(storage)
        storage, study = space.default_storage(), study or space.name
    url = storage_url(storage)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        raise StudyError(f"no storage at {url.removeprefix('sqlite:///')}; `npusim dse run` "
                         "makes it (or give the --storage a run used)")
    store = rdb(storage)
    name = _study_name(store, study)
    st = optuna.load_study(study_name=name, storage=store)
    return frame(st)


def frame(study):
    """The DataFrame of an open Optuna study (see load)."""
    import pandas as pd
    spec = study.user_attrs.get(SPACE)
    if spec is None:
        raise StudyError(f"study '{study.study_name}' was not made by npusim dse (no space)")
    from npusim.dse.objectives import OBJECTIVES
    labels = [w["label"] for w in spec["workloads"]]
    wanted = spec["minimize"] + spec["maximize"]
    objectives = wanted + [o for o in OBJECTIVES if o not in wanted]
    rows = []
    for t in study.get_trials(deepcopy=False):
        rec = t.user_attrs.get(RECORD)
        if rec is None:
            continue  # not finished (in flight, or left by a killed driver: resumed later)
        rows.append(_row(rec, t.number, spec, objectives, labels))
    columns = (["trial", "target", "status", "reason"] + list(spec["params"]) + objectives
               + [f"{o}[{label}]" for o in objectives for label in labels]
               + ["wall_s", "cpu_s", "key", "npusim_version", "git_commit", "seed"]
               + [f"workload_hash[{label}]" for label in labels] + ["worker"])
    df = pd.DataFrame(rows, columns=columns)
    df.attrs.update(study=study.study_name, objectives=wanted,
                    directions={o: "minimize" for o in spec["minimize"]}
                    | {o: "maximize" for o in spec["maximize"]},
                    params=list(spec["params"]), workloads=labels)
    return df


def _row(rec: dict, number: int, spec: dict, objectives: list, labels: list) -> dict:
    from isa.target import SHAPE2D, Target
    row = {"trial": number, "target": rec["target"], "status": rec["status"],
           "reason": rec["reason"]}
    target = Target.create(rec["target"])
    for name in spec["params"]:
        attr = target.spec.attr(name)
        value = getattr(target, attr.key)
        row[name] = attr.format(value) if attr.type == SHAPE2D else value
    values, per = rec.get("values", {}), rec.get("per", {})
    for o in objectives:
        row[o] = values.get(o, math.nan)
        for label in labels:
            row[f"{o}[{label}]"] = per.get(o, {}).get(label, math.nan)
    prov = rec.get("provenance", {})
    row.update(wall_s=rec.get("wall_s"), cpu_s=rec.get("cpu_s"), key=rec["key"],
               npusim_version=prov.get("npusim_version"),
               git_commit=prov.get("git_commit"), seed=prov.get("seed"), worker=rec.get("worker"))
    for label in labels:
        row[f"workload_hash[{label}]"] = prov.get("workload_hash", {}).get(label)
    return row
