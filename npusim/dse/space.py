"""The space file (TOML): a study's base Target, the attributes it varies and how, its workloads,
objectives and constraints, parsed and checked into a Space; a mistake is one line naming the
key, the value and what is allowed."""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from npusim.dse.errors import SpaceError

SAMPLERS = ("grid", "random", "tpe", "nsga2")
SECTIONS = {
    "study": ("name", "base", "sampler", "seed", "trials", "batch"),
    "workloads": ("models", "resolution"),
    "space": None,  # any attribute of the base Target's kind
    "objectives": ("minimize", "maximize"),
    "constraints": None,  # any registered objective
}
RANGE_KEYS = ("low", "high", "step", "log")
DEFAULT_BATCH = 8


def _close(word: str, known) -> str:
    known = list(known)
    close = difflib.get_close_matches(word, known, n=3, cutoff=0.5)
    near = f"close matches: {', '.join(close)}; " if close else ""
    return f"{near}allowed: {', '.join(known)}"


@dataclass(frozen=True)
class Param:
    """One varied attribute: `choices` (a list in the file) or a range low..high (`step`,
    `log`); `name` is the attribute's dashed name, `key` its Python name."""

    name: str
    key: str
    choices: tuple | None = None
    low: Any = None
    high: Any = None
    step: Any = None
    log: bool = False

    @property
    def is_int(self) -> bool:
        return self.choices is None and all(isinstance(v, int) for v in (self.low, self.high)) \
            and (self.step is None or isinstance(self.step, int))

    def grid_values(self) -> list:
        """The values a grid takes: the choices; a range by its step (low, low+step, ...), or
        by doubling from low when log (multiples of step when one is given)."""
        if self.choices is not None:
            return list(self.choices)
        out = []
        if self.log:
            v = self.low
            while v <= self.high:
                out.append(v)
                v = v * 2
        elif self.step is not None:
            n = int(math.floor((self.high - self.low) / self.step + 1e-9))
            out = [self.low + i * self.step for i in range(n + 1)]
        else:
            raise SpaceError(f"[space] {self.name} = {{low = {self.low}, high = {self.high}}}: "
                             "a grid needs a finite set of values; allowed: a list, or a range "
                             "with step or log = true")
        return [int(v) if self.is_int else float(v) for v in out]

    def snap(self, value):
        """A sampled range value as the attribute takes it: on the step grid from low."""
        if self.choices is not None or self.step is None:
            return value
        k = round((value - self.low) / self.step)
        v = min(self.high, max(self.low, self.low + k * self.step))
        return int(v) if self.is_int else float(v)

    def describe(self) -> dict:
        if self.choices is not None:
            return {"choices": list(self.choices)}
        return {"low": self.low, "high": self.high, "step": self.step, "log": self.log}


@dataclass(frozen=True)
class Workload:
    """A model to run at every point: a zoo name or .onnx path, its resolution (zoo image
    models), and its label (the `<objective>[<label>]` columns: the zoo name or file stem)."""

    model: str
    resolution: int | None
    label: str

    def as_dict(self) -> dict:
        return {"model": self.model, "resolution": self.resolution, "label": self.label}


@dataclass(frozen=True)
class Space:
    """A parsed space file (docs/dse.md)."""

    name: str
    base: str
    sampler: str
    seed: int
    params: tuple
    workloads: tuple
    minimize: tuple
    maximize: tuple = ()
    constraints: dict = field(default_factory=dict)  # objective -> {"min": x, "max": y}
    trials: int | None = None
    batch: int = DEFAULT_BATCH
    source: str | None = None  # the file it was read from

    # ---- derived --------------------------------------------------------------------------
    @property
    def objectives(self) -> tuple:
        """The study's objectives in Optuna's order: the minimized, then the maximized."""
        return self.minimize + self.maximize

    @property
    def directions(self) -> list:
        return ["minimize"] * len(self.minimize) + ["maximize"] * len(self.maximize)

    @property
    def adaptive(self) -> bool:
        """Whether the sampler learns from finished points (then points are asked in batches
        of `batch`, each batch seeing the same history whatever the parallelism)."""
        return self.sampler in ("tpe", "nsga2")

    @property
    def param_names(self) -> list:
        return [p.name for p in self.params]

    def grid(self) -> list:
        """Every grid point as {name: value}, in the order Optuna's GridSampler numbers them."""
        names = sorted(self.param_names)  # GridSampler's own order (sorted names, product)
        by = {p.name: p for p in self.params}
        return [dict(zip(names, combo))
                for combo in itertools.product(*(by[n].grid_values() for n in names))]

    def size(self, trials: int | None = None) -> int:
        """How many points the study evaluates: the whole grid, or the trial budget."""
        if self.sampler == "grid":
            return len(self.grid())
        n = trials if trials is not None else self.trials
        if n is None:
            raise SpaceError(f"[study] sampler = '{self.sampler}' needs a trial budget: "
                             "[study] trials = N in the space file, or --trials N")
        return n

    def target(self, params: dict):
        """The full Target of a point: the base with the point's attribute values."""
        from isa.target import Target
        by = {p.name: p for p in self.params}
        values = {by[k].key: by[k].snap(v) for k, v in params.items()}
        return Target.create(self.base).with_attrs(**values)

    def as_dict(self) -> dict:
        """JSON-able, stored with the study so `load` knows the columns and a resumed run can
        tell it is the same space."""
        return {"name": self.name, "base": self.base, "sampler": self.sampler, "seed": self.seed,
                "batch": self.batch,
                "params": {p.name: p.describe() for p in self.params},
                "workloads": [w.as_dict() for w in self.workloads],
                "minimize": list(self.minimize), "maximize": list(self.maximize),
                "constraints": self.constraints}

    def fingerprint(self) -> str:
        """What must not change between a run and its resume (not the trial budget)."""
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()

    def default_storage(self) -> str:
        """SQLite beside the space file (or in the working folder for a dict space)."""
        where = Path(self.source).with_suffix(".db") if self.source else Path(f"{self.name}.db")
        return f"sqlite:///{where.resolve()}"


# ---- parsing ------------------------------------------------------------------------------

def load_space(path) -> Space:
    """Read and check a space file."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise SpaceError(f"space file '{path}' cannot be read: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpaceError(f"{path}: not valid TOML: {e}") from None
    return parse_space(data, source=str(p))


def parse_space(data: dict, source: str | None = None) -> Space:
    """Check a space given as a dict (the TOML file's tables)."""
    where = f"{source}: " if source else ""
    try:
        return _parse(data, source)
    except SpaceError as e:
        raise SpaceError(where + str(e)) from None


def _table(data: dict, name: str, required: bool) -> dict:
    value = data.get(name)
    if value is None:
        if required:
            raise SpaceError(f"[{name}] is missing; a space file needs the tables "
                             f"{', '.join(f'[{s}]' for s in SECTIONS if s != 'constraints')}")
        return {}
    if not isinstance(value, dict):
        raise SpaceError(f"'{name}' = {value!r} must be a table [{name}]")
    known = SECTIONS[name]
    if known is not None:
        for key in value:
            if key not in known:
                raise SpaceError(f"[{name}] key '{key}' is unknown; {_close(key, known)}")
    return value


def _parse(data: dict, source) -> Space:
    from isa.target import Target, TargetError
    for key in data:
        if key not in SECTIONS:
            raise SpaceError(f"table [{key}] is unknown; {_close(key, SECTIONS)}")
    study = _table(data, "study", True)
    name = study.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpaceError(f"[study] name = {name!r}: allowed: a non-empty string naming the study")
    base = study.get("base", "npu-edge")
    try:
        base_target = Target.create(base)
    except (TargetError, TypeError) as e:
        raise SpaceError(f"[study] base = {base!r}: {e}") from None
    if base_target.kind != "npu":
        raise SpaceError(f"[study] base = {base!r} is a {base_target.kind} target; allowed: an "
                         "npu Target (a tag such as npu-edge, or an npu target string)")
    sampler = study.get("sampler", "grid")
    if sampler not in SAMPLERS:
        raise SpaceError(f"[study] sampler = {sampler!r}; {_close(str(sampler), SAMPLERS)}")
    seed = _int(study, "seed", 0, "study", low=0)
    trials = _int(study, "trials", None, "study", low=1)
    batch = _int(study, "batch", DEFAULT_BATCH, "study", low=1)

    params = tuple(_param(base_target, k, v) for k, v in _table(data, "space", True).items())
    if not params:
        raise SpaceError("[space] is empty; allowed: one or more npu attributes, e.g. "
                         "array = [\"8x8\", \"16x16\"]")
    keys = [p.key for p in params]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise SpaceError(f"[space] attribute '{dup.replace('_', '-')}' is given twice "
                         "(once dashed, once underscored)")

    workloads = _workloads(_table(data, "workloads", True))
    objectives = _table(data, "objectives", True)
    minimize = _names(objectives, "minimize")
    maximize = _names(objectives, "maximize")
    if not minimize and not maximize:
        raise SpaceError("[objectives] has no objective; allowed: minimize = [...] and/or "
                         f"maximize = [...] of: {', '.join(_registered())}")
    both = set(minimize) & set(maximize)
    if both:
        raise SpaceError(f"[objectives] {sorted(both)[0]} is both minimized and maximized")
    constraints = {}
    for key, bound in _table(data, "constraints", False).items():
        _check_objective(key, "constraints")
        if not isinstance(bound, dict) or not bound or set(bound) - {"min", "max"} or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in bound.values()):
            raise SpaceError(f"[constraints] {key} = {bound!r}; allowed: a table "
                             "{ max = X } and/or { min = X } of numbers")
        constraints[key] = {k: float(v) for k, v in sorted(bound.items())}
    return Space(name=name.strip(), base=str(base), sampler=sampler, seed=seed, params=params,
                 workloads=workloads, minimize=minimize, maximize=maximize,
                 constraints=constraints, trials=trials, batch=batch, source=source)


def _int(table: dict, key: str, default, section: str, low: int):
    value = table.get(key, default)
    if value is default:
        return value
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise SpaceError(f"[{section}] {key} = {value!r}; allowed: an integer >= {low}")
    return value


def _registered() -> list:
    from npusim.dse.objectives import OBJECTIVES
    return list(OBJECTIVES)


def _check_objective(name, section: str) -> None:
    known = _registered()
    if name not in known:
        raise SpaceError(f"[{section}] '{name}' is not an objective; {_close(str(name), known)}")


def _names(table: dict, key: str) -> tuple:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SpaceError(f"[objectives] {key} = {value!r}; allowed: a list of objectives of: "
                         f"{', '.join(_registered())}")
    for v in value:
        _check_objective(v, "objectives")
    if len(set(value)) != len(value):
        raise SpaceError(f"[objectives] {key} = {value!r} names an objective twice")
    return tuple(value)


def _workloads(table: dict) -> tuple:
    from npusim.flow import zoo_models
    zoo = zoo_models()
    models = table.get("models")
    if isinstance(models, str):
        models = [models]
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise SpaceError(f"[workloads] models = {models!r}; allowed: a list of zoo names "
                         f"({', '.join(zoo)}) or .onnx paths")
    resolution = table.get("resolution")
    if resolution is not None and (not isinstance(resolution, int) or isinstance(resolution, bool)
                                   or resolution < 1):
        raise SpaceError(f"[workloads] resolution = {resolution!r}; allowed: an integer >= 1")
    out, labels = [], set()
    for m in models:
        if m in zoo:
            takes, label = zoo[m]["resolution"], m
        elif os.path.isfile(m):
            takes, label = False, Path(m).stem
        else:
            raise SpaceError(f"[workloads] model '{m}' is neither a zoo model nor a file; "
                             f"{_close(m, zoo)} (or an .onnx path)")
        if label in labels:
            raise SpaceError(f"[workloads] model '{m}' is listed twice (label '{label}')")
        labels.add(label)
        out.append(Workload(m, resolution if takes else None, label))
    return tuple(out)


def _param(base, name: str, spec) -> Param:
    from isa.target import SHAPE2D, TargetError
    known = [a.name for a in base.spec.attrs]
    try:
        attr = base.spec.attr(name)
    except TargetError:
        raise SpaceError(f"[space] '{name}' is not an {base.kind} attribute; "
                         f"{_close(name.replace('_', '-'), known)}") from None

    def check(value):
        try:
            v = attr.coerce(value, base.kind)
        except TargetError as e:
            raise SpaceError(f"[space] {attr.name} = {value!r}: {e}") from None
        return attr.format(v) if attr.type == SHAPE2D else v

    if isinstance(spec, list):
        if not spec:
            raise SpaceError(f"[space] {attr.name} = []: allowed: a non-empty list of values "
                             f"or a range {{ low = .., high = .. }}")
        choices = [check(v) for v in spec]
        if len(set(map(str, choices))) != len(choices):
            raise SpaceError(f"[space] {attr.name} = {spec!r} lists a value twice")
        return Param(attr.name, attr.key, choices=tuple(choices))
    if isinstance(spec, dict):
        for k in spec:
            if k not in RANGE_KEYS:
                raise SpaceError(f"[space] {attr.name} range key '{k}' is unknown; "
                                 f"{_close(k, RANGE_KEYS)}")
        if attr.type not in (int, float):
            raise SpaceError(f"[space] {attr.name} = {spec!r}: a range needs a number "
                             f"attribute; '{attr.name}' is a "
                             f"{getattr(attr.type, '__name__', attr.type)}: "
                             "give a list of values")
        if "low" not in spec or "high" not in spec:
            raise SpaceError(f"[space] {attr.name} = {spec!r}: a range needs low and high")
        low, high = check(spec["low"]), check(spec["high"])
        if low > high:
            raise SpaceError(f"[space] {attr.name}: low = {low} > high = {high}; "
                             "allowed: low <= high")
        step, log = spec.get("step"), spec.get("log", False)
        if not isinstance(log, bool):
            raise SpaceError(f"[space] {attr.name} log = {log!r}; allowed: true or false")
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0 or (
                    attr.type is int and not isinstance(step, int)):
                kind = "an integer" if attr.type is int else "a number"
                raise SpaceError(f"[space] {attr.name} step = {step!r}; allowed: {kind} > 0")
        if log and low <= 0:
            raise SpaceError(f"[space] {attr.name} low = {low} with log = true; allowed: low > 0")
        return Param(attr.name, attr.key, low=low, high=high, step=step, log=log)
    raise SpaceError(f"[space] {attr.name} = {spec!r}; allowed: a list of values or a range "
                     "{ low = .., high = .., step = .., log = true|false }")
