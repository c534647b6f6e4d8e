#!/usr/bin/env python3
"""Full-length runs of the cases in cases/ at several rank counts, each checked by weft-verify.

CI runs every case for a few frames (tests/e2e); this driver runs them for all their frames
and records, per case and rank count, whether weft-verify passes on every frame, the worst
strain, the smallest gap, the Newton iterations and the wall time, in
bench/results/verify_cases.{json,md}. Results are merged by (case, ranks), so the table
can be filled over several sessions.

    /usr/bin/python3 bench/verify_cases.py [--build build] [--cases drape_default,...]
        [--ranks 1,2,3] [--timeout 3600] [--set key=value ...] [--report-only]

Run from the repository root. A run that exceeds --timeout seconds is killed and recorded
as such; weft-verify then checks the frames its partial result file holds (every check but
'complete', which fails by design) and the row says so.
"""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import time

RESULTS = "bench/results"
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]
DEFAULT_CASES = ["hang_two_corners", "pull_weighted", "pinned_poke", "kinematic_push", "drape_default", "funnel",
                 "rotating_sphere", "cloth_stack"]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out
    return p.returncode, out


def one(args, case, ranks):
    os.makedirs(args.out_dir, exist_ok=True)
    out = os.path.join(args.out_dir, f"{case}_np{ranks}.h5")
    cmd = MPI + ["-n", str(ranks), os.path.join(args.build, "bin", "weft"), f"cases/{case}.yaml", "-o", out]
    for kv in args.set or []:
        cmd += ["--set", kv]
    load = loadavg()
    t0 = time.time()
    rc, log = run(cmd, args.timeout)
    r = {"case": case, "ranks": ranks, "command": " ".join(cmd), "wall_s": round(time.time() - t0, 1),
         "load_at_start": load, "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
         "commit": subprocess.run(["git", "log", "--oneline", "-1"], capture_output=True, text=True).stdout.strip()}
    its = [int(m) for m in re.findall(r"newton\s+(\d+)", log)]
    if its:
        r["newton_total"] = sum(its)
        r["newton_max"] = max(its)
    if rc is not None and rc != 0:
        r["status"] = f"weft exit {rc}"
        r["log_tail"] = log.strip().splitlines()[-3:]
        return r
    # A run cut by the timeout still has every frame it finished (weft flushes the file after
    # each): weft-verify checks those, and only its 'complete' check fails.
    vrc, vout = run([os.path.join(args.build, "bin", "weft-verify"), out, "--json"], 1800)
    try:
        v = json.loads(vout)
    except (TypeError, ValueError):
        r["status"] = f"timeout (> {args.timeout} s)" if rc is None else f"weft-verify exit {vrc}"
        return r
    if rc is None:
        rest = [c for c in v.get("checks", []) if c["name"] != "complete"]
        ok = all(c.get("pass") for c in rest)
        r["status"] = (f"timeout (> {args.timeout:.0f} s), partial: the {v.get('frames')} frames written "
                       + ("PASS every other check" if ok else "FAIL"))
    else:
        r["status"] = "PASS" if v.get("pass") else "FAIL"
    r["frames"] = v.get("frames")
    for c in v.get("checks", []):
        if c["name"] == "strain":
            r["worst_strain"], r["strain_limit"] = c.get("worst"), c.get("limit")
        elif c["name"] == "distance":
            r["min_gap"] = c.get("worst")
        elif c["name"] == "intersection":
            r["intersections"] = c.get("violations")
        if not c.get("pass") and not (rc is None and c["name"] == "complete"):
            r.setdefault("failed_checks", []).append(c["name"] + ": " + c.get("message", ""))
    return r


def fmt(x, f):
    return "" if x is None else format(x, f)


def report(data):
    L = ["# Full-length case runs checked by weft-verify", "",
         "- driver: `bench/verify_cases.py` (one `mpirun` per case and rank count, every frame of the case as "
         "written in cases/, then `weft-verify --json` on the result file: complete, finite, strain <= limit, no "
         "intersection, every pair's distance >= its offset, no inversion, in every frame).",
         f"- host cores (`nproc`): {os.cpu_count()}; every rank single-threaded; the machine may be shared "
         "(load average at the start of each run in the table), so wall times are indicative only.", "",
         "| case | ranks | status | frames | Newton its (total / max per step) | worst strain / limit | min gap (m) | "
         "wall s | load at start | date | commit |",
         "|---|---:|---|---:|---|---|---:|---:|---|---|---|"]
    for key in sorted(data, key=lambda k: (DEFAULT_CASES.index(k.split("@")[0]) if k.split("@")[0] in DEFAULT_CASES
                                          else 99, k)):
        r = data[key]
        st = r["status"] + ("; " + "; ".join(r["failed_checks"]) if r.get("failed_checks") else "")
        strain = f"{fmt(r.get('worst_strain'), '.5f')} / {fmt(r.get('strain_limit'), '.4g')}" if r.get("worst_strain") else ""
        L.append(f"| {r['case']} | {r['ranks']} | {st} | {r.get('frames', '')} | {r.get('newton_total', '')} / "
                 f"{r.get('newton_max', '')} | {strain} | {fmt(r.get('min_gap'), '.3g')} | {r['wall_s']} | "
                 f"{r['load_at_start'].split(' ')[0]} | {r['date']} | {r['commit'].split(' ')[0]} |")
    L.append("")
    L.append("Commands: " + "; ".join(f"`{data[k]['command']}`" for k in sorted(data)))
    with open(os.path.join(RESULTS, "verify_cases.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES))
    ap.add_argument("--ranks", default="1,2,3")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--set", action="append", help="key=value passed to weft --set (recorded in the command)")
    ap.add_argument("--out-dir", default="build/verify_cases")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    path = os.path.join(RESULTS, "verify_cases.json")
    data = json.load(open(path)) if os.path.exists(path) else {}
    if not args.report_only:
        for case in args.cases.split(","):
            for ranks in [int(r) for r in args.ranks.split(",")]:
                r = one(args, case, ranks)
                print(f"{case} np={ranks}: {r['status']} ({r['wall_s']} s)", flush=True)
                data[f"{case}@{ranks}"] = r
                with open(path, "w") as f:
                    json.dump(data, f, indent=1)
                report(data)
    report(data)


if __name__ == "__main__":
    main()
