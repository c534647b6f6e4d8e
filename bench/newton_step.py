#!/usr/bin/python3
"""Newton-step benchmark: time per Newton iteration of the C-IPC stepper, split into
assembly, linear solve and line search, over cloth sizes x MPI ranks x linear solvers.

Runs build-bench/bin/bench-newton_step (one process group per configuration, under
mpirun), keeps the raw results in bench/results/newton_step.json and writes
bench/results/newton_step.md and bench/results/newton_step.png.

    /usr/bin/python3 bench/newton_step.py [--build DIR] [--sizes 128,256,512] [--ranks 1,2]
        [--solvers cholmod,cholmod-direct,mumps,mumps-blr,substructured,gamg,hypre,icc] [--frames 2] [--timeout 600]
        [--mem-limit-gb 20] [--repeat-below 60] [--repeats 2] [--log-view]
        [--report-only] [--case cases/hang_two_corners.yaml]

Run from the repository root. A configuration that runs longer than --timeout seconds or
whose processes together exceed --mem-limit-gb of resident memory is killed and marked
in the table. Configurations whose first run took less than --repeat-below seconds are
run again (--repeats runs in all) and the fastest run is kept: the machine is shared.
--report-only rewrites the markdown and the plot from the JSON without running anything.
--log-view also runs -log_view for the fastest solver at 65K vertices on 1 and 2 ranks and
stores the output beside the table.
"""
import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import time

SOLVERS = {
    "cholmod": ("CHOLMOD", ["-ksp_type", "preonly", "-pc_type", "cholesky", "-pc_factor_mat_solver_type", "cholmod"]),
    # weft's default on one rank: CHOLMOD called directly on the AIJ arrays (a PCSHELL,
    # src/solver/direct_cholmod.hpp); "cholmod" above is PETSc's interface to it.
    "cholmod-direct": ("CHOLMOD direct", ["--set", "solver.linear.pc=cholesky"]),
    "mumps": ("MUMPS", ["-ksp_type", "preonly", "-pc_type", "cholesky", "-pc_factor_mat_solver_type", "mumps"]),
    # MUMPS with block low-rank compression of the fronts (ICNTL(35) = 2, compressed before
    # elimination: ICNTL(36) = 1) at dropping tolerance 1e-12: an approximate Cholesky whose
    # Newton directions leave a relative residual of 3e-10..7e-7 at 262K vertices.
    "mumps-blr": ("MUMPS BLR 1e-12", ["-ksp_type", "preonly", "-pc_type", "cholesky", "-pc_factor_mat_solver_type",
                                      "mumps", "-mat_mumps_icntl_35", "2", "-mat_mumps_icntl_36", "1",
                                      "-mat_mumps_cntl_7", "1e-12"]),
    # weft's substructured Cholesky on several ranks (one sequential MUMPS factorisation per
    # rank + the dense interface Schur complement, src/solver/substructured_cholesky.hpp);
    # on one rank the same as "mumps".
    "substructured": ("Substructured Cholesky", ["--set", "solver.linear.pc=cholesky", "-weft_substructure"]),
    "gamg": ("CG+GAMG", ["-ksp_type", "cg", "-pc_type", "gamg"]),
    "hypre": ("CG+hypre", ["-ksp_type", "cg", "-pc_type", "hypre"]),
    "icc": ("CG+bjacobi/ICC", ["-ksp_type", "cg", "-pc_type", "bjacobi", "-sub_pc_type", "icc"]),
}
RESULTS = "bench/results"


def process_tree(root):
    """Pids of `root` and all its descendants (mpirun and its ranks), with their RSS in bytes."""
    page = os.sysconf("SC_PAGE_SIZE")
    parent, rss = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(")") + 2:].split()  # fields[0] = state (field 3)
        parent[int(d)] = int(fields[1])
        rss[int(d)] = int(fields[21]) * page
    tree, frontier = {root}, [root]
    while frontier:
        nxt = [c for c, par in parent.items() if par in frontier and c not in tree]
        tree.update(nxt)
        frontier = nxt
    return {pid: rss.get(pid, 0) for pid in tree}


def run_one(args, size, ranks, solver, extra=(), capture_log=None):
    """One configuration (mpirun and its ranks); returns a result dict (status ok/timeout/oom/failed)."""
    exe = os.path.join(args.build, "bin", "bench-newton_step")
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
           "--mca", "mpi_yield_when_idle", "1", "-n", str(ranks), exe,
           "--case", args.case, "--res", str(size), "--frames", str(args.frames), "--json"] + SOLVERS[solver][1] + list(extra)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    load = loadavg()
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    peak, status = 0, None
    import threading
    out_chunks, err_chunks = [], []
    to = threading.Thread(target=lambda: out_chunks.append(p.stdout.read()))
    te = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()))
    to.start(), te.start()
    while p.poll() is None:
        time.sleep(0.5)
        tree = process_tree(p.pid)
        rss = sum(tree.values())
        peak = max(peak, rss)
        if rss > args.mem_limit_gb * 2**30:
            status = "oom"
        elif time.time() - t0 > args.timeout:
            status = "timeout"
        if status:
            for pid in tree:  # only the processes this run started
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.wait()
            break
    to.join(), te.join()
    elapsed = time.time() - t0
    out, err = "".join(out_chunks), "".join(err_chunks)
    r = {"size": size, "ranks": ranks, "solver": solver, "elapsed_s": elapsed, "peak_rss_gib": peak / 2**30,
         "load_at_start": load,
         "command": " ".join(cmd)}
    if capture_log:
        with open(capture_log, "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + out + err)
    if status:
        r["status"] = status
        return r
    for line in out.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[7:])
            res["ksp_pc"] = res.pop("solver")
            r.update(res)
            r["status"] = "ok"
            return r
    r["status"] = "failed"
    r["returncode"] = p.returncode
    r["stderr"] = err.strip().splitlines()[-3:] if err.strip() else []
    if p.returncode in (-9, 137):
        r["status"] = "killed"
    return r


def per_iter(r):
    t = r["assembly_s"] + r["solve_s"] + r["line_search_s"]
    return t / max(1, r["newton_iters"])


def run_all(args, prior=()):
    results = []
    for size in args.sizes:
        for ranks in args.ranks:
            for solver in args.solvers:
                if solver == "cholmod" and ranks > 1:
                    continue  # CHOLMOD is sequential
                best = None
                # Work per Newton iteration grows at least linearly with the vertex count and
                # the iteration counts do not fall with refinement, so a configuration whose
                # previous size took t seconds takes at least t * (ratio of vertex counts):
                # skip it when that bound is already over the time limit.
                prev = [r for r in list(prior) + results if r["ranks"] == ranks and r["solver"] == solver and r["size"] < size]
                if prev:
                    q = max(prev, key=lambda r: r["size"])
                    bound = max(q["elapsed_s"], q.get("bound_s", 0)) * (size / q["size"]) ** 2
                    if q["status"] in ("timeout", "oom", "killed", "predicted") or bound > args.timeout:
                        results.append({"size": size, "ranks": ranks, "solver": solver, "status": "predicted",
                                        "elapsed_s": 0, "peak_rss_gib": 0, "bound_s": bound, "prev_size": q["size"],
                                        "prev_status": q["status"], "prev_elapsed_s": q["elapsed_s"]})
                        print(f"{size}x{size} {ranks} rank(s) {solver}: skipped (bound {bound:.0f} s)", flush=True)
                        continue
                for rep in range(args.repeats):
                    r = run_one(args, size, ranks, solver)
                    msg = f"{size}x{size} {ranks} rank(s) {solver}: {r['status']}"
                    if r["status"] == "ok":
                        msg += f", {r['newton_iters']} its, {per_iter(r):.4f} s/it, {r['elapsed_s']:.1f} s"
                    elif r["status"] == "failed":
                        msg += f" rc={r.get('returncode')} {r.get('stderr')}"
                    print(msg, flush=True)
                    if r["status"] != "ok":
                        if best is None:
                            best = r
                        break
                    r["runs"] = rep + 1
                    if best is None or best["status"] != "ok" or per_iter(r) < per_iter(best):
                        best = dict(r)
                    best["runs"] = rep + 1
                    if r["elapsed_s"] > args.repeat_below:
                        break
                results.append(best)
                save(args, results)  # after every configuration: a killed run keeps what it measured
    return results


def save(args, results):
    """Write the JSON: this run's results, merged into the old file's with --merge."""
    for r in results:
        r["timeout"], r["mem_limit_gb"] = args.timeout, args.mem_limit_gb
    meta = dict(args.meta, load_after=loadavg())
    data = {"meta": meta, "results": list(results)}
    old = args.old
    if old:
        key = lambda r: (r["size"], r["ranks"], r["solver"])
        new = {key(r) for r in results}
        merged = [r for r in old["results"] if key(r) not in new] + list(results)
        merged.sort(key=lambda r: (r["size"], r["ranks"], list(SOLVERS).index(r["solver"])))
        m = dict(old["meta"])
        m["command"] = old["meta"]["command"] + " ; " + meta["command"]
        m["load_after"] = meta["load_after"]
        data = {"meta": m, "results": merged, "notes": old.get("notes", [])}
    with open(os.path.join(RESULTS, "newton_step.json"), "w") as f:
        json.dump(data, f, indent=1)


def fmt_status(r):
    if r["status"] == "predicted":
        n = r["prev_size"] ** 2
        if r["prev_status"] != "ok":
            why = {"timeout": "took > %d min" % round(r.get("timeout", 600) / 60), "predicted": "was skipped already",
                   "oom": "ran out of memory", "killed": "was killed"}[r["prev_status"]]
            return f"skipped: the {n}-vertex run {why}"
        return (f"skipped: > {round(r.get('timeout', 600) / 60)} min predicted (the {n}-vertex run took "
                f"{r['prev_elapsed_s']:.0f} s; cost grows at least with the vertex count: >= {r['bound_s']:.0f} s)")
    return {"timeout": "stopped: > %d min" % round(r.get("timeout", 600) / 60),
            "oom": "skipped: out of memory (> %.0f GiB)" % r.get("mem_limit_gb", 20),
            "killed": "killed (out of memory?)",
            "failed": "failed: " + " ".join(r.get("stderr", []))[:120]}.get(r["status"], r["status"])


def report(args, data):
    meta, results = data["meta"], data["results"]
    ok = [r for r in results if r["status"] == "ok"]
    lines = []
    lines.append("# Newton-step benchmark: assembly, linear solve and line search per Newton iteration\n")
    lines.append(f"- command: `{meta['command']}` (from the repository root; the driver is "
                 f"`bench/newton_step.cpp`, one `mpirun` per configuration, e.g. `{ok[0]['command'] if ok else ''}`)")
    lines.append(f"- date: {meta['date']}; host: {meta['host']}; cores (`nproc`): {meta['nproc']}; memory: {meta['mem_gib']:.0f} GiB")
    lines.append(f"- machine: shared and loaded — other engineers' builds and tests ran at the same time "
                 f"(load average {meta['load_before']} before, {meta.get('load_after', '?')} after). "
                 f"Runs shorter than {meta['repeat_below']:.0f} s were repeated ({meta['repeats']} runs) and the fastest kept; "
                 "longer ones ran once, so their figures carry the load noise.")
    lines.append(f"- case: `{meta['case']}` (1 m square held at two corners, neo-Hookean, E = 1e5 Pa, strain limit 1.01, "
                 f"dt = 0.04 s) with `objects.0.mesh.resolution` overridden; {meta['frames']} time steps from the flat "
                 "initial state; the strain limit is active at the pinned corners from the first step (max strain column).")
    lines.append("- every rank single-threaded (`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`), `mpirun --bind-to none --mca "
                 "mpi_yield_when_idle 1` (on the loaded machine busy-polling ranks otherwise lose whole time slices to other jobs: "
                 "2x slower at 2 ranks in a check at 48x48); "
                 "CG tolerance rtol = 1e-6 (the case default); times are the stepper's own wall-clock split "
                 "(`StepStats`), the slowest rank's per step.")
    lines.append("- s/iteration = (assembly + solve + line search) / Newton iterations over all steps; "
                 "non-solve = assembly + line search; s/step = wall time per time step; CPU share = CPU time the "
                 "least served rank got during the steps / their wall time (well below 1: other jobs took the core; "
                 "waiting ranks poll, so MPI waits count as CPU).\n")
    lines.append("| vertices | ranks | solver | Newton its | KSP its/Newton | s/iteration | assembly % | solve % | line search % | non-solve % | s/step | max strain | peak RSS GiB | load avg at start | CPU share | note |")
    lines.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        n = r["size"] ** 2
        name = SOLVERS[r["solver"]][0]
        if r["status"] != "ok":
            lines.append(f"| {n} | {r['ranks']} | {name} | | | | | | | | | | {r['peak_rss_gib']:.1f} | {r.get('load_at_start', '').split(' ')[0]} | | {fmt_status(r)} |")
            continue
        t = r["assembly_s"] + r["solve_s"] + r["line_search_s"]
        note = []
        if not r["converged"]:
            note.append("not converged")
        if r["fallbacks"]:
            note.append(f"{r['fallbacks']} solves redone by Cholesky")
        if r.get("runs", 1) > 1:
            note.append(f"best of {r['runs']}")
        ksp_per = r["ksp_iters"] / max(1, r["newton_iters"])
        share = f"{r['cpu_share']:.2f}" if "cpu_share" in r else ""
        lines.append(f"| {n} | {r['ranks']} | {name} | {r['newton_iters']} | {ksp_per:.1f} | {per_iter(r):.4f} | "
                     f"{100 * r['assembly_s'] / t:.1f} | {100 * r['solve_s'] / t:.1f} | {100 * r['line_search_s'] / t:.1f} | "
                     f"{100 * (r['assembly_s'] + r['line_search_s']) / t:.1f} | {r['wall_s'] / r['frames']:.3f} | "
                     f"{r['max_strain']:.4f} | {r['peak_rss_mib'] / 1024:.2f} | {r['load_at_start'].split(' ')[0]} | {share} | {'; '.join(note)} |")

    # Targets
    lines.append("\n## Targets (foundation issue)\n")

    def best(size, ranks, key=per_iter):
        c = [r for r in ok if r["size"] == size and r["ranks"] == ranks]
        return min(c, key=key) if c else None

    for ranks in args.ranks:
        b = best(256, ranks)
        if b:
            t = b["assembly_s"] + b["solve_s"] + b["line_search_s"]
            ns = 100 * (b["assembly_s"] + b["line_search_s"]) / t
            allns = [100 * (r["assembly_s"] + r["line_search_s"]) / (r["assembly_s"] + r["solve_s"] + r["line_search_s"])
                     for r in ok if r["size"] == 256 and r["ranks"] == ranks]
            lines.append(f"- non-solve <= 40% of a Newton iteration at 65K vertices, {ranks} rank(s): fastest solver "
                         f"{SOLVERS[b['solver']][0]} {per_iter(b):.4f} s/iteration, non-solve **{ns:.1f}%** -> "
                         f"{'met' if ns <= 40 else 'NOT met'} (range over solvers {min(allns):.1f}-{max(allns):.1f}%)")
    el = os.path.join(RESULTS, "elements.md")
    if os.path.exists(el):
        import re
        txt = open(el).read()
        m = re.search(r"membrane \(neo-Hookean\) \+ bending: .*?\*\*(\d+) elements/s per core\*\*", txt)
        m2 = re.search(r"Overall: .*?\*\*(\d+) elements/s\*\*", txt)
        if m:
            v = int(m.group(1))
            s = (f"- membrane + bending assembly >= 250K elements/s per core: kernels **{v:,}** elements/s per core "
                 f"-> {'met' if v >= 250000 else 'NOT met'}")
            if m2:
                w = int(m2.group(1))
                s += (f"; the whole assembly inside the stepper (kernels incl. strain limit + PETSc insertion + "
                      f"MatAssembly) **{w:,}** elements/s -> {'met' if w >= 250000 else 'NOT met'} (bench/results/elements.md)")
            lines.append(s)
    b1, b2 = best(512, 1, key=lambda r: r["wall_s"]), best(512, 2, key=lambda r: r["wall_s"])
    if b1 and b2:
        sp = b1["wall_s"] / b2["wall_s"]
        sp_it = per_iter(b1) / per_iter(b2)
        lines.append(f"- 2 ranks >= 1.6x faster than 1 rank at 262K vertices (best solver each, wall time of the "
                     f"{b1['frames']} steps): 1 rank {SOLVERS[b1['solver']][0]} {b1['wall_s']:.2f} s, 2 ranks "
                     f"{SOLVERS[b2['solver']][0]} {b2['wall_s']:.2f} s -> **{sp:.2f}x** -> {'met' if sp >= 1.6 else 'NOT met'} "
                     f"(per Newton iteration {sp_it:.2f}x)")
    else:
        lines.append("- 2 ranks >= 1.6x faster than 1 rank at 262K vertices: not measured (a configuration is missing)")

    lines.append("\n## Per step\n")
    lines.append("| vertices | ranks | solver | step: Newton its / assembly s / solve s / line search s |")
    lines.append("|---:|---:|---|---|")
    for r in ok:
        steps = "; ".join(f"{s['newton_iters']} / {s['assembly_s']:.2f} / {s['solve_s']:.2f} / {s['line_search_s']:.2f}"
                          for s in r["steps"])
        lines.append(f"| {r['size'] ** 2} | {r['ranks']} | {SOLVERS[r['solver']][0]} | {steps} |")
    if data.get("notes"):
        lines.append("\n## Notes\n")
        lines.extend(data["notes"])
    lines.append("\nPlot: `newton_step.png` (stacked seconds per Newton iteration per configuration, one panel per size). "
                 "Raw data: `newton_step.json`.")
    with open(os.path.join(RESULTS, "newton_step.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plot(ok, args)


def plot(ok, args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot", file=sys.stderr)
        return
    sizes = sorted({r["size"] for r in ok})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 4.8), squeeze=False)
    colors = {"assembly": "#4c72b0", "solve": "#dd8452", "line search": "#55a868"}
    for ax, size in zip(axes[0], sizes):
        rs = [r for r in ok if r["size"] == size]
        labels = [f"{SOLVERS[r['solver']][0]}\n{r['ranks']} rank{'s' if r['ranks'] > 1 else ''}" for r in rs]
        x = range(len(rs))
        bottom = [0.0] * len(rs)
        for key, name in (("assembly_s", "assembly"), ("solve_s", "solve"), ("line_search_s", "line search")):
            h = [r[key] / max(1, r["newton_iters"]) for r in rs]
            ax.bar(x, h, bottom=bottom, color=colors[name], label=name)
            bottom = [b + v for b, v in zip(bottom, h)]
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"{size}x{size} = {size * size:,} vertices")
        ax.set_ylabel("seconds per Newton iteration")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend()
    fig.suptitle("weft C-IPC Newton iteration: assembly / linear solve / line search (hang_two_corners)")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "newton_step.png"), dpi=110)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    global RESULTS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-bench")
    ap.add_argument("--case", default="cases/hang_two_corners.yaml")
    ap.add_argument("--sizes", default="128,256,512")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--solvers", default="cholmod,mumps,mumps-blr,substructured,gamg,hypre,icc")
    ap.add_argument("--frames", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--mem-limit-gb", type=float, default=20)
    ap.add_argument("--repeat-below", type=float, default=60)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--log-view", action="store_true")
    ap.add_argument("--results", default=RESULTS, help="output folder (default bench/results)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--merge", action="store_true", help="add to / replace in the existing JSON instead of starting anew")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.ranks = [int(s) for s in args.ranks.split(",")]
    args.solvers = args.solvers.split(",")
    RESULTS = args.results
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, "newton_step.json")
    if args.report_only:
        with open(path) as f:
            data = json.load(f)
        args.ranks = sorted({r["ranks"] for r in data["results"]})
        report(args, data)
        return
    old = None
    if args.merge and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) / 2**20
    args.meta = {"command": "/usr/bin/python3 bench/newton_step.py " + " ".join(sys.argv[1:]),
                 "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "host": platform.node(),
                 "nproc": os.cpu_count(), "mem_gib": mem, "load_before": loadavg(), "case": args.case,
                 "frames": args.frames, "repeat_below": args.repeat_below, "repeats": args.repeats}
    args.old = old
    run_all(args, old["results"] if old else ())
    data = json.load(open(path))
    if args.log_view:
        for ranks in args.ranks:
            c = [r for r in data["results"] if r["status"] == "ok" and r["size"] == 256 and r["ranks"] == ranks]
            if c:
                b = min(c, key=per_iter)
                run_one(args, 256, ranks, b["solver"], extra=["-log_view"],
                        capture_log=os.path.join(RESULTS, f"newton_step_logview_256_{ranks}rank_{b['solver']}.txt"))
    args.ranks = sorted({r["ranks"] for r in data["results"]})
    report(args, data)


if __name__ == "__main__":
    main()
