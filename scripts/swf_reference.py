#!/usr/bin/env python3
"""Plain reference simulator of the scheduling contract, for SWF traces.

Usage:
    python3 scripts/swf_reference.py --policy easy --estimate user FILE.swf[.gz]
        [--starts out.csv]

Standard library only; written to be obviously correct, not fast. It mirrors
the Go oracle in scheduler/internal/reference.

The contract (one processor pool):

* Normalisation, in this order, dropping and counting: procs = field 8 if > 0
  else field 5 (drop if <= 0 or > machine); run = field 4 (drop if < 0; 0 is
  valid); estimate = field 9 if > 0 else run (with --estimate exact:
  estimate = run). The machine size is the header's "; MaxProcs: N" (else
  "; MaxNodes: N"). Fields are 1-based: 1 job id, 2 submit, 4 run,
  5 allocated procs, 8 requested procs, 9 requested time.
* A job is never killed: it holds its processors for run seconds.
* Jobs are ordered by (submit, id) (ties on both keep file order).
* Events at time t: every completion at t frees its processors; then every
  arrival at t is appended to the queue; then one scheduling pass at now = t.
  Jobs started in it with run 0 complete at t: that completion is processed
  and another pass runs at t (repeated while there are such completions).
* Expected end of a running job started at s: s + estimate if > now, else
  now + 1.
* fcfs: while the queue head fits in the free processors, start it.
* easy: after that, if the head H does not fit: walk the running jobs by
  (expected end, id) adding their processors to the free ones until H fits;
  shadow = that expected end; extra = processors free at the shadow (all
  running jobs with expected end <= shadow counted) - H.procs. Scan the rest
  of the queue in order: j starts iff j.procs <= free and
  (now + j.estimate <= shadow or j.procs <= extra); if admitted only by the
  extra rule, extra -= j.procs.
* conservative (Mu'alem and Feitelson's, with compression): a queued job's
  reservation persists from pass to pass. Free-processor profile from now
  (running jobs held until their expected end) with every queued job's
  reservation in it; all of them are void, and made afresh, where a running
  job has outlived its estimate or a reservation's start has passed. A job
  without a reservation is reserved at the earliest s >= now where the
  profile holds its processors over [s, s + max(estimate, 1)). Where a job
  ended at this time (or the reservations were void), the schedule is
  compressed: the queued jobs in order, each one's reservation taken out and
  made again at the earliest such s, the later jobs' still in place. A job
  reserved at now starts now.
* Nothing else persists between passes but the queue and the running jobs.

Summary: wait = start - submit; bounded slowdown =
max(1, (wait + run) / max(run, 10)); makespan = last completion - first
submit.
"""

import argparse
import gzip
import sys
import time


def read_swf(path, estimate_source):
    """Returns (jobs, machine, dropped) with jobs as dicts in file order."""
    opener = gzip.open if path.endswith(".gz") else open
    max_procs = None
    max_nodes = None
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                body = s[1:].strip()
                if ":" in body:
                    key, _, value = body.partition(":")
                    key = key.strip()
                    value = value.strip()
                    if key == "MaxProcs" and max_procs is None:
                        max_procs = int(value.split()[0])
                    elif key == "MaxNodes" and max_nodes is None:
                        max_nodes = int(value.split()[0])
                continue
            rows.append(s.split())
    if max_procs is not None and max_procs > 0:
        machine = max_procs
    elif max_nodes is not None and max_nodes > 0:
        machine = max_nodes
    else:
        raise SystemExit("%s: no MaxProcs or MaxNodes header" % path)

    dropped = {"procs<=0": 0, "procs>machine": 0, "run<0": 0}
    jobs = []
    for fields in rows:
        f = [int(float(x)) for x in fields]  # a few traces write "-1.0" etc.
        job_id, submit, run = f[0], f[1], f[3]
        alloc, req_procs, req_time = f[4], f[7], f[8]
        procs = req_procs if req_procs > 0 else alloc
        if procs <= 0:
            dropped["procs<=0"] += 1
            continue
        if procs > machine:
            dropped["procs>machine"] += 1
            continue
        if run < 0:
            dropped["run<0"] += 1
            continue
        if estimate_source == "exact":
            estimate = run
        else:
            estimate = req_time if req_time > 0 else run
        jobs.append({"id": job_id, "submit": submit, "run": run,
                     "estimate": estimate, "procs": procs})
    return jobs, machine, dropped


class Sim:
    def __init__(self, jobs, machine, policy):
        self.jobs = jobs
        self.machine = machine
        self.policy = policy
        # Python's sort is stable: ties on (submit, id) keep file order.
        self.order = sorted(range(len(jobs)),
                            key=lambda i: (jobs[i]["submit"], jobs[i]["id"]))
        self.next = 0
        self.queue = []
        self.running = []
        self.free = machine
        self.starts = [None] * len(jobs)
        self.reserved = {}  # queued job -> its reservation's start
        self.ended = False  # a job ended at this time

    def end(self, i):
        return self.starts[i] + self.jobs[i]["run"]

    def expected_end(self, i, now):
        e = self.starts[i] + self.jobs[i]["estimate"]
        return e if e > now else now + 1

    def start(self, i, now):
        self.starts[i] = now
        self.free -= self.jobs[i]["procs"]
        self.running.append(i)

    def complete_at(self, t):
        done = [i for i in self.running if self.end(i) == t]
        for i in done:
            self.free += self.jobs[i]["procs"]
        self.running = [i for i in self.running if self.end(i) != t]
        return len(done) > 0

    def run(self):
        while self.next < len(self.order) or self.running or self.queue:
            candidates = [self.end(i) for i in self.running]
            if self.next < len(self.order):
                candidates.append(self.jobs[self.order[self.next]]["submit"])
            if not candidates:
                raise RuntimeError("jobs queued but nothing can happen")
            t = min(candidates)
            self.ended = self.complete_at(t)
            while (self.next < len(self.order)
                   and self.jobs[self.order[self.next]]["submit"] == t):
                self.queue.append(self.order[self.next])
                self.next += 1
            self.schedule(t)
            while self.complete_at(t):  # run-0 jobs just started
                self.ended = True
                self.schedule(t)
        return self.starts

    def schedule(self, now):
        if self.policy == "fcfs":
            self.fcfs(now)
        elif self.policy == "easy":
            self.fcfs(now)
            self.easy_backfill(now)
        elif self.policy == "conservative":
            self.conservative(now)
        else:
            raise ValueError(self.policy)

    def fcfs(self, now):
        while self.queue and self.jobs[self.queue[0]]["procs"] <= self.free:
            self.start(self.queue.pop(0), now)

    def easy_backfill(self, now):
        if not self.queue:
            return
        head = self.queue[0]
        hp = self.jobs[head]["procs"]
        by_end = sorted(self.running,
                        key=lambda i: (self.expected_end(i, now),
                                       self.jobs[i]["id"], i))
        avail = self.free
        shadow = None
        for i in by_end:
            avail += self.jobs[i]["procs"]
            if avail >= hp:
                shadow = self.expected_end(i, now)
                break
        assert shadow is not None
        at_shadow = self.free + sum(self.jobs[i]["procs"] for i in self.running
                                    if self.expected_end(i, now) <= shadow)
        extra = at_shadow - hp

        rest = [head]
        for k in range(1, len(self.queue)):
            if self.free == 0:
                # No job (procs >= 1) can start any more in this pass.
                rest.extend(self.queue[k:])
                break
            j = self.queue[k]
            job = self.jobs[j]
            by_shadow = now + job["estimate"] <= shadow
            by_extra = job["procs"] <= extra
            if job["procs"] <= self.free and (by_shadow or by_extra):
                if not by_shadow:
                    extra -= job["procs"]
                self.start(j, now)
            else:
                rest.append(j)
        self.queue = rest

    def conservative(self, now):
        # Profile: list of [t, free] steps; free holds from t to the next
        # step's t, the last step for ever.
        times = sorted(set([now] + [self.expected_end(i, now)
                                    for i in self.running]))
        profile = []
        for t in times:
            busy = sum(self.jobs[i]["procs"] for i in self.running
                       if self.expected_end(i, now) > t)
            profile.append([t, self.machine - busy])
        void = any(self.starts[i] + self.jobs[i]["estimate"] <= now
                   for i in self.running)
        void = void or any(self.reserved.get(j, now) < now for j in self.queue)
        if void:
            self.reserved = {}
        for j in self.queue:
            if j in self.reserved:
                at = self.reserved[j]
                d = max(self.jobs[j]["estimate"], 1)
                profile = reserve(profile, at, at + d, self.jobs[j]["procs"])
        sweep = void or self.ended

        rest = []
        for j in self.queue:
            job = self.jobs[j]
            d = max(job["estimate"], 1)
            if j in self.reserved and not sweep:
                if self.reserved[j] == now:
                    del self.reserved[j]
                    self.start(j, now)
                else:
                    rest.append(j)
                continue
            if j in self.reserved:
                old = self.reserved[j]
                profile = reserve(profile, old, old + d, -job["procs"])
            at = earliest(profile, job["procs"], d)
            profile = reserve(profile, at, at + d, job["procs"])
            if at == now:
                self.reserved.pop(j, None)
                self.start(j, now)
            else:
                self.reserved[j] = at
                rest.append(j)
        self.queue = rest


def earliest(profile, procs, d):
    """Earliest step start s with procs free over [s, s + d)."""
    for i in range(len(profile)):
        s = profile[i][0]
        ok = True
        k = i
        while k < len(profile) and profile[k][0] < s + d:
            if profile[k][1] < procs:
                ok = False
                break
            k += 1
        if ok:
            return s
    raise RuntimeError("job never fits")


def split(profile, t):
    for k in range(len(profile)):
        if profile[k][0] == t:
            return profile
        if profile[k][0] > t:
            return profile[:k] + [[t, profile[k - 1][1]]] + profile[k:]
    return profile + [[t, profile[-1][1]]]


def reserve(profile, start, end, procs):
    profile = split(profile, start)
    profile = split(profile, end)
    for step in profile:
        if start <= step[0] < end:
            step[1] -= procs
    return profile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", choices=["fcfs", "easy", "conservative"],
                    required=True)
    ap.add_argument("--estimate", choices=["user", "exact"], default="user")
    ap.add_argument("--starts", help="write id,start per job to this CSV")
    ap.add_argument("file")
    args = ap.parse_args()

    t0 = time.time()
    jobs, machine, dropped = read_swf(args.file, args.estimate)
    t1 = time.time()
    starts = Sim(jobs, machine, args.policy).run()
    t2 = time.time()

    n = len(jobs)
    waits = [starts[i] - jobs[i]["submit"] for i in range(n)]
    bsld = [max(1.0, (waits[i] + jobs[i]["run"]) / max(jobs[i]["run"], 10))
            for i in range(n)]
    print("file           %s" % args.file)
    print("policy         %s" % args.policy)
    print("estimate       %s" % args.estimate)
    print("machine        %d" % machine)
    print("jobs           %d" % n)
    print("dropped        %d (%s)" % (sum(dropped.values()), ", ".join(
        "%s: %d" % kv for kv in dropped.items())))
    if n:
        makespan = (max(starts[i] + jobs[i]["run"] for i in range(n))
                    - min(j["submit"] for j in jobs))
        print("mean wait      %.6f" % (sum(waits) / n))
        print("mean bsld      %.6f" % (sum(bsld) / n))
        print("makespan       %d" % makespan)
    print("time           read %.2fs, simulate %.2fs" % (t1 - t0, t2 - t1))

    if args.starts:
        with open(args.starts, "w") as f:
            f.write("id,start\n")
            for i in range(n):
                f.write("%d,%d\n" % (jobs[i]["id"], starts[i]))


if __name__ == "__main__":
    main()
