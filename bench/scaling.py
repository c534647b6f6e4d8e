#!/usr/bin/env python3
"""Strong and weak scaling studies of any weft case (issue 20).

Runs weft at several rank counts (locally with mpirun, or by writing SLURM / PBS job
scripts for a cluster), collects weft's closing per-rank summary (the RANK / RUN lines:
peak memory VmHWM, owned / ghost / contact-halo vertices, per-stage seconds, scene build,
output volume and time) and PETSc's -log_view CSV, and writes markdown tables (time per
step and per stage, speedup, parallel efficiency, load imbalance = max / mean over ranks,
halo volume, peak memory per rank, build time, output bandwidth), a JSON file and, where
matplotlib or gnuplot is installed, PNG plots. Python 3 standard library only.

  # strong scaling: the same case at 1, 2 and 4 ranks, 10 steps each
  bench/scaling.py cases/hang_two_corners.yaml --ranks 1,2,4 --steps 10 \\
      --set 'objects[0].mesh.resolution=[128, 128]' --out results/strong_hang
  # weak scaling: the size grows with the rank count r ({...} is a Python expression in r)
  bench/scaling.py cases/drape_default.yaml --mode weak --ranks 1,2,4 \\
      --weak-set 'objects[0].mesh.resolution=[{round(64*r**0.5)}, {round(64*r**0.5)}]'
  # a cluster: write job scripts (nodes chosen from --ranks-per-node), submit, then collect
  bench/scaling.py CASE --ranks 64,128,256 --launcher slurm --ranks-per-node 64 --out study
  sbatch study/run_r64.sbatch ...;  bench/scaling.py --collect study

See README.md "Scaling studies".
"""
import argparse
import csv
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def expand(template, r):
    """'[{round(64*r**0.5)}, 8]' at r = 4 -> '[128, 8]'."""
    return re.sub(r"\{([^{}]*)\}", lambda m: str(eval(m.group(1), {"math": math, "round": round, "int": int}, {"r": r})),
                  template)


def run_name(r):
    return "run_r%d" % r


def weft_command(args, r, out_dir, weft, mpirun):
    name = run_name(r)
    cmd = [weft, os.path.abspath(args.case), "--frames", str(args.steps), "-o", os.path.join(out_dir, name + ".h5"), "--rank-summary"]
    for s in args.set:
        cmd += ["--set", s]
    if args.mode == "weak":
        for s in args.weak_set:
            cmd += ["--set", expand(s, r)]
    cmd += ["-log_view", ":%s:ascii_csv" % os.path.join(out_dir, name + "_logview.csv")]
    cmd += args.petsc
    return mpirun + ["-n", str(r)] + cmd


def write_job(args, r, out_dir, weft):
    """A SLURM or PBS script for the run at r ranks; returns its path."""
    name = run_name(r)
    nodes = max(1, math.ceil(r / args.ranks_per_node))
    per_node = min(r, args.ranks_per_node)
    log = os.path.join(out_dir, name + ".log")
    cmd = " ".join(shlex.quote(c) for c in weft_command(args, r, out_dir, weft, [args.job_mpirun]))
    if args.launcher == "slurm":
        head = ["#SBATCH --job-name=weft-%s-r%d" % (args.mode, r), "#SBATCH --nodes=%d" % nodes,
                "#SBATCH --ntasks=%d" % r, "#SBATCH --ntasks-per-node=%d" % per_node,
                "#SBATCH --cpus-per-task=1", "#SBATCH --time=%s" % args.walltime, "#SBATCH --exclusive"]
        if args.account:
            head.append("#SBATCH --account=%s" % args.account)
        if args.partition:
            head.append("#SBATCH --partition=%s" % args.partition)
        path = os.path.join(out_dir, name + ".sbatch")
    else:
        head = ["#PBS -N weft-%s-r%d" % (args.mode, r), "#PBS -l select=%d:ncpus=%d:mpiprocs=%d" % (nodes, per_node, per_node),
                "#PBS -l walltime=%s" % args.walltime, "#PBS -l place=scatter:excl"]
        if args.account:
            head.append("#PBS -A %s" % args.account)
        if args.partition:
            head.append("#PBS -q %s" % args.partition)
        path = os.path.join(out_dir, name + ".pbs")
    body = ["#!/bin/bash"] + head + [
        "# written by bench/scaling.py; collect with: bench/scaling.py --collect %s" % shlex.quote(out_dir),
        "set -e", "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1",
        "cd %s" % shlex.quote(out_dir), "%s > %s 2>&1" % (cmd, shlex.quote(log)), ""]
    with open(path, "w") as f:
        f.write("\n".join(body))
    os.chmod(path, 0o755)
    return path


def parse_log(path):
    """RANK and RUN lines of weft's closing summary."""
    ranks, run = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == "RANK":
                ranks[int(w[1])] = {w[i]: float(w[i + 1]) for i in range(2, len(w) - 1, 2)}
            elif w and w[0] == "RUN":
                run = {w[i]: float(w[i + 1]) for i in range(1, len(w) - 1, 2)}
    return [ranks[k] for k in sorted(ranks)], run


def parse_logview(path):
    """PETSc -log_view ascii_csv: per event, the largest time over ranks (main stage)."""
    events = {}
    if not os.path.exists(path):
        return events
    with open(path) as f:
        rows = list(csv.reader(f))
    if not rows:
        return events
    head = [h.strip() for h in rows[0]]
    try:
        ie, it = head.index("Event Name"), head.index("Time")
    except ValueError:
        return events
    for row in rows[1:]:
        if len(row) <= max(ie, it):
            continue
        try:
            t = float(row[it])
        except ValueError:
            continue
        name = row[ie].strip()
        if name == "summary":  # the whole run, not an event
            continue
        events[name] = max(events.get(name, 0.0), t)
    return events


def stages_of(rank_rows):
    """The per-stage seconds weft reports (every *_s figure except the setup phases)."""
    skip = {"step_s", "build_s", "check_s", "setup_s"}
    names = []
    for row in rank_rows:
        for k in row:
            if k.endswith("_s") and k not in skip and k not in names:
                names.append(k)
    return names


def summarise(out_dir, meta):
    runs = []
    for r in meta["ranks"]:
        log = os.path.join(out_dir, run_name(r) + ".log")
        if not os.path.exists(log):
            print("scaling: no %s (job not run yet?)" % log, file=sys.stderr)
            continue
        rows, run = parse_log(log)
        if not rows or not run:
            print("scaling: %s has no RANK/RUN summary (run failed?)" % log, file=sys.stderr)
            continue
        steps = max(1.0, run.get("steps", 1.0))
        mean = lambda k: sum(x.get(k, 0.0) for x in rows) / len(rows)
        mx = lambda k: max(x.get(k, 0.0) for x in rows)
        entry = {
            "ranks": r, "vertices": int(run["vertices"]), "steps": int(steps),
            "step_s": run["step_s"] / steps,
            "iterations_per_step": run.get("iterations", 0) / steps,
            "iteration_s": run["step_s"] / run["iterations"] if run.get("iterations") else 0.0,
            "stages": {k: {"mean": mean(k) / steps, "max": mx(k) / steps,
                           "imbalance": (mx(k) / mean(k)) if mean(k) > 0 else 1.0} for k in stages_of(rows)},
            "owned_imbalance": mx("owned_vertices") / max(1e-300, mean("owned_vertices")),
            "ghost_vertices": sum(x.get("ghost_vertices", 0) for x in rows),
            "halo_per_step": sum(x.get("halo_vertices", 0) for x in rows) / steps,
            "peak_MB_max": mx("peak_rss_MB"), "peak_MB_mean": mean("peak_rss_MB"),
            "build_s": run.get("build_s", 0) + run.get("check_s", 0) + run.get("setup_s", 0),
            "scene_build_s": run.get("build_s", 0),
            "output_MB": run.get("output_MB", 0), "output_s": run.get("output_s", 0),
            "output_MBps": run.get("output_MBps", 0),
            "petsc": parse_logview(os.path.join(out_dir, run_name(r) + "_logview.csv")),
        }
        runs.append(entry)
    if not runs:
        sys.exit("scaling: no finished run in %s" % out_dir)
    base = runs[0]
    for e in runs:
        speed = base["step_s"] / e["step_s"] if e["step_s"] > 0 else 0.0
        scale = e["ranks"] / base["ranks"]
        e["speedup"] = speed
        e["efficiency"] = speed / scale if meta["mode"] == "strong" else speed
    return runs


def markdown(runs, meta):
    L = ["# Scaling study: %s (%s scaling)" % (os.path.basename(meta["case"]), meta["mode"]), "",
         "Command: `%s`  " % meta["command"], "Date: %s; host %s, %s cores; weft %s  " % (
             meta["date"], meta["host"], meta["cores"], meta["weft"]),
         "Efficiency: strong T(1)/(r T(r)), weak T(1)/T(r) (relative to the smallest run, per step; "
         "iterations per step can differ between sizes, so compare s/iteration too). "
         "Imbalance = max / mean over ranks of a stage's time. Memory = VmHWM per rank.", ""]
    L += ["| ranks | vertices | vertices/rank | s/step | speedup | efficiency | peak MB/rank (max) | peak MB/rank (mean) | "
          "halo vertices/step | ghost vertices | build s | output MB/s | iterations/step | s/iteration |",
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in runs:
        L.append("| %d | %d | %d | %.4g | %.3f | %.3f | %.1f | %.1f | %.0f | %d | %.3f | %.1f | %.1f | %.4g |" % (
            e["ranks"], e["vertices"], e["vertices"] // e["ranks"], e["step_s"], e["speedup"], e["efficiency"],
            e["peak_MB_max"], e["peak_MB_mean"], e["halo_per_step"], e["ghost_vertices"], e["build_s"], e["output_MBps"],
            e["iterations_per_step"], e["iteration_s"]))
    stages = []
    for e in runs:
        stages += [k for k in e["stages"] if k not in stages]
    if stages:
        L += ["", "Per stage, seconds per step (mean over ranks) and imbalance (max / mean). A stage's wall time includes "
              "the waits inside its collectives (reductions, halo exchange), so its max / mean understates the work "
              "imbalance; owned vertices max / mean: " + ", ".join("%d ranks %.3f" % (e["ranks"], e["owned_imbalance"]) for e in runs) + ".", "",
              "| ranks | " + " | ".join(stages) + " |", "|---:|" + "---:|" * len(stages)]
        for e in runs:
            cells = []
            for k in stages:
                s = e["stages"].get(k)
                cells.append("%.4g (%.2f)" % (s["mean"], s["imbalance"]) if s else "-")
            L.append("| %d | %s |" % (e["ranks"], " | ".join(cells)))
    top = {}
    for e in runs:
        for k, v in e["petsc"].items():
            top[k] = max(top.get(k, 0.0), v)
    # The linear solver's events always (a study asks where the solve goes), then the
    # costliest others: ranked by time alone, a loaded machine's MPI waits crowd them out.
    events = [k for k in ("KSPSolve", "PCSetUp", "PCApply", "MatAssemblyEnd") if k in top]
    events += [k for k, _ in sorted(top.items(), key=lambda kv: -kv[1]) if k not in events][:10 - len(events)]
    if events:
        L += ["", "PETSc -log_view, largest time over ranks (s, whole run):", "",
              "| ranks | " + " | ".join(events) + " |", "|---:|" + "---:|" * len(events)]
        for e in runs:
            L.append("| %d | %s |" % (e["ranks"], " | ".join("%.3g" % e["petsc"].get(k, 0.0) for k in events)))
    return "\n".join(L) + "\n"


def plots(runs, meta, out_dir):
    xs = [e["ranks"] for e in runs]
    series = {"seconds per step": [e["step_s"] for e in runs], "parallel efficiency": [e["efficiency"] for e in runs],
              "peak MB per rank": [e["peak_MB_max"] for e in runs]}
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axs = plt.subplots(1, 3, figsize=(13, 3.8))
        for ax, (title, ys) in zip(axs, series.items()):
            ax.plot(xs, ys, "o-")
            ax.set_xlabel("ranks")
            ax.set_title(title)
            ax.set_xticks(xs)
        fig.suptitle("%s, %s scaling" % (os.path.basename(meta["case"]), meta["mode"]))
        fig.tight_layout()
        path = os.path.join(out_dir, "scaling.png")
        fig.savefig(path, dpi=110)
        return path
    except ImportError:
        pass
    if shutil.which("gnuplot"):
        data = os.path.join(out_dir, "scaling.dat")
        with open(data, "w") as f:
            for e in runs:
                f.write("%d %g %g %g\n" % (e["ranks"], e["step_s"], e["efficiency"], e["peak_MB_max"]))
        path = os.path.join(out_dir, "scaling.png")
        script = ("set terminal png size 1300,380; set output '%s'; set multiplot layout 1,3; set xlabel 'ranks';"
                  "plot '%s' u 1:2 w lp t 'seconds per step'; plot '%s' u 1:3 w lp t 'parallel efficiency';"
                  "plot '%s' u 1:4 w lp t 'peak MB per rank'; unset multiplot") % (path, data, data, data)
        subprocess.run(["gnuplot", "-e", script], check=True)
        return path
    print("scaling: neither matplotlib nor gnuplot is installed: no PNG plot (the tables and JSON are written)")
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", nargs="?")
    p.add_argument("--mode", choices=["strong", "weak"], default="strong")
    p.add_argument("--ranks", default="1,2", help="comma-separated rank counts (default 1,2)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--set", action="append", default=[], help="override for every run (weft --set)")
    p.add_argument("--weak-set", action="append", default=[],
                   help="weak scaling: KEY=VALUE with {python expression in r}, e.g. "
                        "'objects[0].mesh.resolution=[{round(64*r**0.5)}, {round(64*r**0.5)}]'")
    p.add_argument("--out", default=None, help="folder for logs, result files, tables (default bench/results/scaling_<case>_<mode>)")
    p.add_argument("--launcher", choices=["local", "slurm", "pbs"], default="local")
    p.add_argument("--mpirun", default="mpirun --oversubscribe", help="local launcher (default: %(default)s)")
    p.add_argument("--job-mpirun", default="srun", help="launcher inside job scripts (srun, mpirun, mpiexec)")
    p.add_argument("--ranks-per-node", type=int, default=64)
    p.add_argument("--walltime", default="01:00:00")
    p.add_argument("--account", default="")
    p.add_argument("--partition", default="", help="SLURM partition / PBS queue")
    p.add_argument("--weft", default=os.path.join(ROOT, "build", "bin", "weft"))
    p.add_argument("--collect", metavar="DIR", help="only read the logs in DIR (after cluster jobs) and write the tables")
    p.add_argument("--keep-h5", action="store_true", help="keep the runs' result files")
    p.add_argument("--petsc", default="", help="PETSc options for every run, one string: --petsc='-ksp_type cg'")
    args = p.parse_args()
    args.petsc = shlex.split(args.petsc)

    if args.collect:
        out_dir = os.path.abspath(args.collect)
        with open(os.path.join(out_dir, "study.json")) as f:
            meta = json.load(f)
    else:
        if not args.case:
            p.error("a case file (or --collect DIR)")
        if args.mode == "weak" and not args.weak_set:
            p.error("--mode weak needs at least one --weak-set KEY=VALUE (the size per rank)")
        ranks = [int(x) for x in args.ranks.split(",") if x]
        stem = os.path.splitext(os.path.basename(args.case))[0]
        out_dir = os.path.abspath(args.out or os.path.join(HERE, "results", "scaling_%s_%s" % (stem, args.mode)))
        os.makedirs(out_dir, exist_ok=True)
        weft = os.path.abspath(args.weft)
        meta = {"case": os.path.abspath(args.case), "mode": args.mode, "ranks": ranks, "steps": args.steps,
                "command": " ".join(shlex.quote(a) for a in sys.argv), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "host": os.uname().nodename, "cores": os.cpu_count(), "launcher": args.launcher, "weft": weft}
        with open(os.path.join(out_dir, "study.json"), "w") as f:
            json.dump(meta, f, indent=1)
        if args.launcher != "local":
            paths = [write_job(args, r, out_dir, weft) for r in ranks]
            submit = "sbatch" if args.launcher == "slurm" else "qsub"
            print("scaling: wrote %d job scripts; submit with\n  %s\nthen: %s --collect %s" % (
                len(paths), "\n  ".join("%s %s" % (submit, x) for x in paths), sys.argv[0], out_dir))
            return 0
        mpirun = shlex.split(args.mpirun)
        for r in ranks:
            cmd = weft_command(args, r, out_dir, weft, mpirun)
            log = os.path.join(out_dir, run_name(r) + ".log")
            print("scaling: %d rank%s: %s" % (r, "s" if r > 1 else "", " ".join(shlex.quote(c) for c in cmd)), flush=True)
            t0 = time.time()
            with open(log, "w") as f:
                rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=out_dir)
            print("scaling:   exit %d after %.1f s, log %s" % (rc, time.time() - t0, log), flush=True)
            if not args.keep_h5:
                for ext in (".h5", ".xdmf"):
                    path = os.path.join(out_dir, run_name(r) + ext)
                    if os.path.exists(path):
                        os.remove(path)
    meta["cores"] = meta.get("cores")
    runs = summarise(out_dir, meta)
    md = markdown(runs, meta)
    with open(os.path.join(out_dir, "scaling.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out_dir, "scaling.json"), "w") as f:
        json.dump({"study": meta, "runs": runs}, f, indent=1)
    png = plots(runs, meta, out_dir)
    print(md)
    print("scaling: wrote %s/scaling.md, scaling.json%s" % (out_dir, ", " + os.path.basename(png) if png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
