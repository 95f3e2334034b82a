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
from npusim.dse.execute import executor
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
              dask: str | None = None, progress: bool = True) -> dict:
    """Evaluate the space's points not yet in storage; -> a summary dict (docs/dse.md).
    Raises Interrupted (a KeyboardInterrupt) on Ctrl-C, with everything finished stored."""
    from optuna.trial import TrialState
    from tqdm import tqdm
    t_start = time.perf_counter()
    study = open_study(space, storage)
    url = storage_url(storage or space.default_storage())
    total = space.size(trials)
    dists = samplers.distributions(space)
    workloads = [w.as_dict() for w in space.workloads]
    trial_ids, finished, by_key, revive, retell = {}, 0, {}, [], []
    best = _Best(space)
    for t in study.get_trials(deepcopy=False):
        trial_ids[t.number] = t._trial_id
        rec = t.user_attrs.get(RECORD)
        if t.state == TrialState.RUNNING:
            (retell if rec is not None else revive).append(t)
        elif rec is not None:
            finished += 1
            by_key.setdefault(rec["key"], rec)
            best.add(rec)
    next_number = len(trial_ids)

    def task_for(number: int, params: dict) -> dict:
        target = str(space.target(params))
        return {"number": number, "key": point_key(target, space.workloads), "target": target,
                "workloads": workloads, "objectives": list(space.objectives),
                "constraints": space.constraints, "seed": space.seed}

    def commit(task: dict, record: dict) -> None:
        nonlocal finished
        tid = trial_ids[task["number"]]
        study._storage.set_trial_user_attr(tid, RECORD, record)
        values = [record.get("values", {}).get(o) for o in space.objectives]
        if all(v is not None and math.isfinite(v) for v in values):
            study.tell(task["number"], values)
        else:
            study.tell(task["number"], state=TrialState.FAIL)
        finished += 1
        by_key.setdefault(record["key"], record)
        best.add(record)

    bar = tqdm(total=max(total, next_number), initial=finished, unit="pt", desc=space.name,
               disable=not progress, dynamic_ncols=True, smoothing=0.1)
    bar.set_postfix_str(best.text())
    def complete(t) -> dict:
        """The params of a trial a killed driver left RUNNING; one killed while it was being
        asked gets the rest of them now, from the same seeded sampler and the same storage
        state (its later batch-mates do not exist yet, none of its own batch is finished)."""
        if set(t.params) == set(dists):
            return t.params
        import optuna
        study.sampler = samplers.make_sampler(space, t.number, total)
        trial = optuna.trial.Trial(study, t._trial_id)
        return {name: trial._suggest(name, d) for name, d in dists.items()}

    queue = [task_for(t.number, complete(t)) for t in sorted(revive, key=lambda t: t.number)]
    ex = executor(jobs, dask)
    in_flight: set = set()
    evaluated = 0
    window = 2 * ex.workers + 2

    def ask() -> None:
        nonlocal next_number
        study.sampler = samplers.make_sampler(space, next_number, total)
        trial = study.ask(fixed_distributions=dists)
        trial_ids[trial.number] = trial._trial_id
        next_number = trial.number + 1
        task = task_for(trial.number, trial.params)
        twin = by_key.get(task["key"])
        if twin is not None:  # the sampler drew a point already stored: its record stands
            commit(task, dict(twin, number=trial.number, duplicate_of=twin["number"]))
            bar.update(1)
        else:
            queue.append(task)

    try:
        for t in retell:  # killed between writing a record and telling Optuna
            rec = t.user_attrs[RECORD]
            commit({"number": t.number, "key": rec["key"]}, rec)
            bar.update(1)
        while True:
            if space.adaptive:
                start = next_number // space.batch * space.batch
                waiting = in_flight | {t["number"] for t in queue}  # resumed ones count too
                if next_number < total and all(n >= start for n in waiting):
                    while next_number < min(total, start + space.batch):
                        ask()
            else:
                while next_number < total and len(in_flight) + len(queue) < window:
                    ask()
            for task in queue:
                ex.submit(task)
                in_flight.add(task["number"])
            queue.clear()
            if not in_flight:
                if next_number >= total:
                    break
                continue
            for task, record in ex.wait(0.5):
                commit(task, record)
                in_flight.discard(task["number"])
                evaluated += 1
                bar.update(1)
                bar.set_postfix_str(best.text(), refresh=False)
    except KeyboardInterrupt:
        ex.close()
        bar.close()
        raise Interrupted(_summary(space, url, total, finished, evaluated, len(revive), best,
                                   t_start, interrupted=True)) from None
    ex.close()
    bar.close()
    return _summary(space, url, total, finished, evaluated, len(revive), best, t_start)


def _summary(space, url, total, finished, evaluated, resumed, best, t_start,
             interrupted=False) -> dict:
    wall = time.perf_counter() - t_start
    return {"study": space.name, "storage": url, "sampler": space.sampler, "points": total,
            "finished": finished, "evaluated": evaluated, "resumed": resumed,
            "ok": best.counts.get("ok", 0), "infeasible": best.counts.get("infeasible", 0),
            "failed": best.counts.get("failed", 0), "wall_s": round(wall, 3),
            "points_per_hour": round(evaluated / wall * 3600, 1) if wall > 0 else None,
            "best": {best.name: best.value}, "interrupted": interrupted}
