#!/usr/bin/python3
"""Issue 20, point 1: CPU time per Newton iteration of a large cloth at 1, 2 and 3 ranks,
before and after a change (two weft binaries), run back to back configuration by
configuration, and the contact phases' share.

    /usr/bin/python3 bench/local_loops.py --before BASE/weft --after build/bin/weft
        [--case cases/hang_two_corners.yaml] [--res 256] [--frames 2] [--ranks 1,2,3]
        [--raw bench/results/local_loops.jsonl] [--report-only]

Each configuration runs weft twice, with --frames 0 (scene build, partition, check, stepper
setup, frame 0) and with --frames F; every rank runs under /usr/bin/time, so the CPU time of
the F steps is the difference of the two runs' CPU times (user + sys; the busiest rank, and
the sum over ranks), divided by the Newton iterations of the F steps (the RUN line of
--rank-summary). CPU time, not wall time: the machine is shared, and a rank's thread CPU
is what its work cost (ranks waiting in MPI yield: --mca mpi_yield_when_idle 1). The
contact share is contact_s / step_s from --rank-summary (wall seconds, mean over ranks).
Results are appended to --raw (JSON lines) and bench/results/local_loops.md is rewritten.
"""
import argparse
import json
import os
import re
import subprocess
import time

MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]


def loadavg():
    return open("/proc/loadavg").read().split()[0]


def run_one(exe, case, res, frames, ranks, out):
    cmd = MPI + ["-n", str(ranks), "/usr/bin/time", "-f", "CPU %U %S", exe, case, "--set",
                 "objects[0].mesh.resolution=[%d, %d]" % (res, res), "--frames", str(frames), "--rank-summary",
                 "-o", out]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    load0, t0 = loadavg(), time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    rec = {"frames": frames, "ranks": ranks, "rc": p.returncode, "wall": time.time() - t0, "load_start": load0,
           "load_end": loadavg(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "cpu": [float(a) + float(b) for a, b in re.findall(r"CPU ([\d.]+) ([\d.]+)", p.stderr)],
           "rank": {}, "run": {}}
    for line in p.stdout.splitlines():
        w = line.split()
        if w and w[0] == "RANK":
            rec["rank"][w[1]] = {w[i]: float(w[i + 1]) for i in range(2, len(w) - 1, 2)}
        if w and w[0] == "RUN":
            rec["run"] = {w[i]: float(w[i + 1]) for i in range(3, len(w) - 1, 2)}
    return rec


def report(raw, path, meta):
    rows = [json.loads(l) for l in open(raw)]
    by = {}
    for r in rows:
        by[(r["label"], r["ranks"], r["frames"])] = r
    lines = ["# Per-iteration loops over the rank's share (issue 20, point 1): before / after", "",
             "- command: `%s`" % meta["command"],
             "- host: %s; cores (`nproc`): %s; dates %s .. %s; load average (1 min) at the runs' start / end: %s" % (
                 meta["host"], meta["cores"], min(r["date"] for r in rows), max(r["date"] for r in rows),
                 ", ".join("%s/%s" % (r["load_start"], r["load_end"]) for r in rows if r["frames"] > 0)),
             "- case: %s at %d^2 (%s vertices), %d steps after frame 0; every rank single-threaded; direct solver "
             "as the case sets it (MUMPS)." % (meta["case"], meta["res"], meta.get("vertices", "?"), meta["frames"]),
             "- CPU s / iteration: (CPU of the run with the steps - CPU of the --frames 0 run) / Newton iterations; "
             "`max` = the busiest rank, `sum` = all ranks (the cost of the iteration); contact share = contact_s / "
             "step_s from --rank-summary (wall, mean over ranks); `broad max` = broad_primitives_max of the busiest "
             "rank (after only: the counter is new).", "",
             "| ranks | label | iterations | CPU s/iter (max) | CPU s/iter (sum) | contact share | contact s (mean) | solve s (mean) | broad max / surface |",
             "|---|---|---|---|---|---|---|---|---|"]
    for ranks in sorted({r["ranks"] for r in rows}):
        for label in ["before", "after"]:
            a, b = by.get((label, ranks, 0)), by.get((label, ranks, meta["frames"]))
            if not a or not b or a["rc"] or b["rc"]:
                continue
            it = b["run"].get("iterations", 0)
            dmax = max(b["cpu"]) - max(a["cpu"])
            dsum = sum(b["cpu"]) - sum(a["cpu"])
            rk = list(b["rank"].values())
            mean = lambda k: sum(x.get(k, 0) for x in rk) / len(rk)
            bmax = max(x.get("broad_primitives_max", 0) for x in rk)
            surf = rk[0].get("surface_primitives", 0)
            lines.append("| %d | %s | %d | %.3f | %.3f | %.1f%% | %.2f | %.2f | %s |" % (
                ranks, label, it, dmax / it, dsum / it, 100 * mean("contact_s") / mean("step_s"), mean("contact_s"),
                mean("solve_s"), "%d / %d" % (bmax, surf) if surf else "-"))
    lines += ["", meta.get("notes", "")]
    open(path, "w").write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="/tmp/base/weft")
    ap.add_argument("--after", default="build/bin/weft")
    ap.add_argument("--case", default="cases/hang_two_corners.yaml")
    ap.add_argument("--res", type=int, default=256)
    ap.add_argument("--frames", type=int, default=2)
    ap.add_argument("--ranks", default="1,2,3")
    ap.add_argument("--raw", default="bench/results/local_loops.jsonl")
    ap.add_argument("--out-dir", default="/tmp")
    ap.add_argument("--notes", default="")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    meta = {"command": "/usr/bin/python3 bench/local_loops.py --before %s --after %s --res %d --frames %d --ranks %s"
            % (args.before, args.after, args.res, args.frames, args.ranks), "host": os.uname().nodename,
            "cores": os.cpu_count(), "case": args.case, "res": args.res, "frames": args.frames,
            "vertices": args.res * args.res, "notes": args.notes}
    if not args.report_only:
        with open(args.raw, "a") as raw:
            for ranks in [int(r) for r in args.ranks.split(",")]:
                for label, exe in [("before", args.before), ("after", args.after)]:
                    for frames in [0, args.frames]:
                        rec = run_one(exe, args.case, args.res, frames, ranks,
                                      os.path.join(args.out_dir, "local_loops_%s_%d_%d.h5" % (label, ranks, frames)))
                        rec["label"] = label
                        raw.write(json.dumps(rec) + "\n")
                        raw.flush()
    report(args.raw, "bench/results/local_loops.md", meta)


if __name__ == "__main__":
    main()
