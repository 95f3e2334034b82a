"""The driver of a study: asks Optuna for points, sends them to the executor, and commits each
record to storage the moment it comes back; resumes a killed run exactly where it stopped.

Exactly once: a point is an Optuna trial, numbered in the order it was asked. A trial left
RUNNING by a killed driver is run again under its own number (or, when its record was written
but the trial not yet told, told from that record); nothing is asked twice, because a fresh
sampler per point (samplers.make_sampler) makes point n depend only on the seed and on the
storage. Adaptive samplers (tpe, nsga2) are asked a whole batch at a time, and the next batch
only once every point of this one is stored, so every batch sees the same history for any
--jobs, after any kill."""

from __future__ import annotations

import hashlib
import json
import math
import time

from npusim.dse import samplers
from npusim.dse.execute import Serial, executor
from npusim.dse.storage import RECORD, open_study, storage_url


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the study; `summary` says what was saved (everything finished)."""

    def __init__(self, summary: dict):
        super().__init__("interrupted")
        self.summary = summary


def point_key(target: str, workloads) -> str:
    """A point's identity: its full Target string and its workloads."""
    text = json.dumps([target, [[w.model, w.resolution] for w in workloads]])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class _Best:
    """The best value of the first objective so far, for the progress bar."""

    def __init__(self, space):
        self.name = space.objectives[0]
        self.sign = -1.0 if self.name in space.maximize else 1.0
        self.value = None
        self.counts = {"ok": 0, "infeasible": 0, "failed": 0}

    def add(self, record: dict) -> None:
        self.counts[record["status"]] = self.counts.get(record["status"], 0) + 1
        v = record.get("values", {}).get(self.name)
        if record["status"] == "ok" and v is not None and not math.isnan(v):
            if self.value is None or self.sign * v < self.sign * self.value:
                self.value = v

    def text(self) -> str:
        best = "-" if self.value is None else f"{self.value:.4g}"
        return f"best {self.name}={best}"


def run_study(space, *, storage=None, trials: int | None = None, jobs: int = 1,
              dask: str | None = None, progress: bool = True, evaluate=None) -> dict:
    """Evaluate the space's points not yet in storage; -> a summary dict (docs/dse.md).
    evaluate: a function task -> record run in this process instead of the simulation (the
    search-quality benchmark replays a whole grid's stored records through it).
    Raises Interrupted (a KeyboardInterrupt) on Ctrl-C, with everything finished stored."""
    return _Run(space, storage, trials, progress).run(jobs, dask, evaluate)


class _Run:
    """One driver run over a study: what storage holds, the points in flight, the bar."""

    def __init__(self, space, storage, trials, progress: bool):
        from optuna.trial import TrialState
        from tqdm import tqdm
        self.t_start = time.perf_counter()
        self.space = space
        self.study = open_study(space, storage)
        self.url = storage_url(storage or space.default_storage())
        self.total = space.size(trials)
        self.dists = samplers.distributions(space)
        self.workloads = [w.as_dict() for w in space.workloads]
        self.trial_ids, self.by_key, self.best = {}, {}, _Best(space)
        self.finished = self.evaluated = 0
        revive, self.retell = [], []
        for t in self.study.get_trials(deepcopy=False):
            self.trial_ids[t.number] = t._trial_id
            rec = t.user_attrs.get(RECORD)
            if t.state == TrialState.RUNNING:
                (self.retell if rec is not None else revive).append(t)
            elif rec is not None:
                self.finished += 1
                self.by_key.setdefault(rec["key"], rec)
                self.best.add(rec)
        self.next_number = len(self.trial_ids)
        self.resumed = len(revive)
        self.bar = tqdm(total=max(self.total, self.next_number), initial=self.finished,
                        unit="pt", desc=space.name, disable=not progress, dynamic_ncols=True,
                        smoothing=0.1)
        self.bar.set_postfix_str(self.best.text())
        self.queue = [self.task_for(t.number, self.complete(t))
                      for t in sorted(revive, key=lambda t: t.number)]
        self.in_flight: set = set()

    def task_for(self, number: int, params: dict) -> dict:
        target = str(self.space.target(params))
        return {"number": number, "key": point_key(target, self.space.workloads),
                "target": target, "workloads": self.workloads,
                "objectives": list(self.space.objectives),
                "constraints": self.space.constraints, "seed": self.space.seed}

    def complete(self, t) -> dict:
        """The params of a trial a killed driver left RUNNING; one killed while it was being
        asked gets the rest of them now, from the same seeded sampler and the same storage
        state (its later batch-mates do not exist yet, none of its own batch is finished)."""
        if set(t.params) == set(self.dists):
            return t.params
        import optuna
        self.study.sampler = samplers.make_sampler(self.space, t.number, self.total)
        trial = optuna.trial.Trial(self.study, t._trial_id)
        return {name: trial._suggest(name, d) for name, d in self.dists.items()}

    def commit(self, number: int, record: dict) -> None:
        """Store a finished point: its record, then its values (FAIL without them)."""
        from optuna.trial import TrialState
        self.study._storage.set_trial_user_attr(self.trial_ids[number], RECORD, record)
        values = [record.get("values", {}).get(o) for o in self.space.objectives]
        if all(v is not None and math.isfinite(v) for v in values):
            self.study.tell(number, values)
        else:
            self.study.tell(number, state=TrialState.FAIL)
        self.finished += 1
        self.by_key.setdefault(record["key"], record)
        self.best.add(record)
        self.bar.update(1)
        self.bar.set_postfix_str(self.best.text(), refresh=False)

    def ask(self) -> None:
        """Ask Optuna for the next point, from a sampler seeded for its number."""
        self.study.sampler = samplers.make_sampler(self.space, self.next_number, self.total)
        trial = self.study.ask(fixed_distributions=self.dists)
        self.trial_ids[trial.number] = trial._trial_id
        self.next_number = trial.number + 1
        task = self.task_for(trial.number, trial.params)
        twin = self.by_key.get(task["key"])
        if twin is not None:  # the sampler drew a point already stored: its record stands
            self.commit(trial.number, dict(twin, number=trial.number,
                                           duplicate_of=twin["number"]))
        else:
            self.queue.append(task)

    def fill(self, window: int) -> None:
        """Ask what may be asked now: grid/random up to `window` points waiting; tpe/nsga2
        the whole next batch, once nothing of an earlier one is unfinished."""
        space = self.space
        if space.adaptive:
            start = self.next_number // space.batch * space.batch
            waiting = self.in_flight | {t["number"] for t in self.queue}  # resumed ones too
            if self.next_number < self.total and all(n >= start for n in waiting):
                while self.next_number < min(self.total, start + space.batch):
                    self.ask()
        else:
            while self.next_number < self.total and \
                    len(self.in_flight) + len(self.queue) < window:
                self.ask()

    def run(self, jobs: int, dask: str | None, evaluate=None) -> dict:
        ex = None
        try:
            for t in self.retell:  # killed between writing a record and telling Optuna
                self.commit(t.number, t.user_attrs[RECORD])
            ex = Serial(evaluate) if evaluate is not None else executor(jobs, dask)
            window = 2 * ex.workers + 2
            while True:
                self.fill(window)
                for task in self.queue:
                    ex.submit(task)
                    self.in_flight.add(task["number"])
                self.queue.clear()
                if not self.in_flight:
                    if self.next_number >= self.total:
                        break
                    continue
                for task, record in ex.wait(0.5):
                    self.commit(task["number"], record)
                    self.in_flight.discard(task["number"])
                    self.evaluated += 1
        except KeyboardInterrupt:
            raise Interrupted(self.summary(interrupted=True)) from None
        finally:
            if ex is not None:
                ex.close()
            self.bar.close()
        return self.summary()

    def summary(self, interrupted: bool = False) -> dict:
        wall = time.perf_counter() - self.t_start
        counts = self.best.counts
        return {"study": self.space.name, "storage": self.url, "sampler": self.space.sampler,
                "points": self.total, "finished": self.finished, "evaluated": self.evaluated,
                "resumed": self.resumed, "ok": counts.get("ok", 0),
                "infeasible": counts.get("infeasible", 0), "failed": counts.get("failed", 0),
                "wall_s": round(wall, 3),
                "points_per_hour": round(self.evaluated / wall * 3600, 1) if wall > 0 else None,
                "best": {self.best.name: self.best.value}, "interrupted": interrupted}
