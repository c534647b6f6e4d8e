#!/usr/bin/python3
"""Contact benchmark: where a C-IPC time step in contact spends its time (broad phase,
barrier, friction, CCD, coupling pattern, halo) against the linear solve and the elastic
assembly, on drape_default and cloth_stack at 1 and 2 ranks, plus weak scaling (drape at
1 rank with res R against 2 ranks with res ~R sqrt 2: the same vertices per rank).

Runs build/bin/bench-contact (one mpirun per configuration), keeps the raw per-step
results in bench/results/contact.json under a label (e.g. "before" / "after" an
optimisation) and writes bench/results/contact.md and bench/results/contact.png.

    /usr/bin/python3 bench/contact.py [--build build] [--label after] [--configs drape64x1,...]
        [--repeats 1] [--timeout 1800] [--report-only] [--warm-dir build/contact_warm]

Run from the repository root. Each configuration starts from a warm checkpoint (the case
run by weft for --warm frames, so the measured steps are in contact) written once into
--warm-dir and reused; the same checkpoint serves 1 and 2 ranks. Every configuration uses
the direct solver (`--set solver.linear.pc=cholesky`: MUMPS on any rank count; one sequential
MUMPS Cholesky per rank when no matrix entry couples two ranks), so
1- and 2-rank runs take the same Newton iterations up to rounding. With --repeats > 1 the
run with the smallest wall time is kept (the machine is shared).
"""
import argparse
import datetime
import json
import math
import os
import platform
import signal
import subprocess
import time

RESULTS = "bench/results"
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]
COMMON = ["--set", "solver.linear.pc=cholesky"]

# name: (case, res (None = the case's own), ranks, warm frames, measured frames[, extra options])
CONFIGS = {
    "drape64x1": ("cases/drape_default.yaml", 64, 1, 8, 2),
    "drape64x2": ("cases/drape_default.yaml", 64, 2, 8, 2),
    "drape90x2": ("cases/drape_default.yaml", 90, 2, 8, 2),
    # one cloth over 2 ranks: MUMPS's distributed factorisation, and substructured
    # (src/solver/substructured_cholesky.hpp, the default since session 8)
    "pair128x2": ("bench/cases/drape_pair.yaml", None, 2, 8, 2, ["-weft_substructure", "0"]),
    "pair128x2sub": ("bench/cases/drape_pair.yaml", None, 2, 8, 2, ["-weft_substructure", "1"]),
    "twin64x2": ("bench/cases/drape_twin.yaml", None, 2, 8, 2),
    # issue 21: the soft frictional drape (E = 8 kPa), 4K and 16K cloth vertices, in contact
    # from the warm checkpoint (frame 8: the cloth on the sphere, folding onto itself over frames 9-12)
    "soft64x1": ("bench/cases/drape_soft.yaml", 64, 1, 8, 4),
    "soft64x2": ("bench/cases/drape_soft.yaml", 64, 2, 8, 4),
    "soft128x1": ("bench/cases/drape_soft.yaml", 128, 1, 12, 2),
    "soft128x2": ("bench/cases/drape_soft.yaml", 128, 2, 12, 2),
    "stack x1": ("cases/cloth_stack.yaml", None, 1, 5, 2),
    "stack x2": ("cases/cloth_stack.yaml", None, 2, 5, 2),
}
PHASES = ["halo", "proximity_broad", "swept_broad", "couplings", "barrier", "barrier_energy", "friction_lag",
          "friction", "friction_energy", "ccd", "gap"]
COLORS = {"halo": "#8c564b", "proximity_broad": "#1f77b4", "swept_broad": "#aec7e8", "couplings": "#d62728",
          "barrier": "#ff7f0e", "barrier_energy": "#ffbb78", "friction_lag": "#98df8a", "friction": "#2ca02c",
          "friction_energy": "#c5e3b0", "ccd": "#9467bd", "gap": "#c49c94", "solve": "#7f7f7f",
          "elastic": "#bcbd22", "other": "#dbdb8d"}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def env():
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def run(cmd, timeout):
    """Runs cmd in its own session; kills only that process group on timeout."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err
    return p.returncode, out, err


def case_args(case, res):
    a = ["--set", f"objects.0.mesh.resolution=[{res},{res}]"] if res else []
    return a + COMMON


def warm_file(args, case, res, frames):
    """The warm checkpoint for (case, res): weft run for `frames` steps, made once."""
    os.makedirs(args.warm_dir, exist_ok=True)
    name = os.path.splitext(os.path.basename(case))[0] + (f"_{res}" if res else "") + f"_f{frames}.h5"
    path = os.path.join(args.warm_dir, name)
    cmd = MPI + ["-n", "2", os.path.join(args.build, "bin", "weft"), case, "--frames", str(frames), "-o", path,
                 "--set", f"output.checkpoint_every={frames}"] + case_args(case, res)
    stamp = path + ".cmd"
    if os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == " ".join(cmd):
        return path, cmd
    print("warm-up:", " ".join(cmd), flush=True)
    rc, out, err = run(cmd, args.timeout)
    if rc != 0:
        raise SystemExit(f"warm-up failed ({rc}): {err[-2000:]}")
    with open(stamp, "w") as f:
        f.write(" ".join(cmd))
    return path, cmd


def run_config(args, name):
    case, res, ranks, warm, frames, *extra = CONFIGS[name]
    wpath, wcmd = warm_file(args, case, res, warm)
    exe = args.bench_exe or os.path.join(args.build, "bin", "bench-contact")
    cmd = MPI + ["-n", str(ranks), exe, "--case", case,
                 "--restart", wpath, "--frames", str(frames), "--json"] + case_args(case, res) + (extra[0] if extra else [])
    best = None
    for rep in range(args.repeats):
        load = loadavg()
        t0 = time.time()
        rc, out, err = run(cmd, args.timeout)
        r = {"config": name, "command": " ".join(cmd), "warm_command": " ".join(wcmd), "load_at_start": load,
             "load_at_end": loadavg(), "elapsed_s": time.time() - t0, "res": res}
        if rc is None:
            r["status"] = "timeout"
        elif rc != 0:
            r["status"] = "failed"
            r["stderr"] = err.strip().splitlines()[-3:]
        else:
            for line in out.splitlines():
                if line.startswith("RESULT "):
                    r.update(json.loads(line[7:]))
                    r["status"] = "ok"
            r.setdefault("status", "failed")
        print(f"{name}: {r['status']}" + (f", {summary(r)['newton']} its, {summary(r)['wall']:.1f} s, contact "
                                          f"{100 * summary(r)['contact_share']:.1f}%, load {load}"
                                          if r["status"] == "ok" else f" {r.get('stderr', '')}"), flush=True)
        if r["status"] != "ok":
            return best or r
        r["runs"] = rep + 1
        if best is None or summary(r)["wall"] < summary(best)["wall"]:
            best = r
        best["runs"] = rep + 1
    return best


def summary(r):
    """Aggregates of one result over its measured steps."""
    st = r["steps"]
    ranks = r["ranks"]
    s = {"newton": sum(x["newton_iters"] for x in st), "wall": sum(x["wall_max"] for x in st),
         "wall_mean": sum(x["wall_mean"] for x in st), "solve": sum(x["solve_mean"] for x in st),
         "elastic": sum(x["elastic_mean"] for x in st), "other": sum(x["other_mean"] for x in st),
         "contact": sum(x["contact_mean"] for x in st), "steps": len(st)}
    s["cpu_max"] = sum(x.get("cpu_max", float("nan")) for x in st)
    s["cpu_per_iter"] = s["cpu_max"] / max(1, s["newton"])
    s["contact_cpu"] = sum(x["contact_cpu_sum"] for x in st) / ranks
    s["contact_share"] = s["contact"] / s["wall_mean"]
    s["per_iter"] = s["wall"] / max(1, s["newton"])
    s["per_step"] = s["wall"] / max(1, len(st))
    ph = {}
    for p in PHASES:
        ph[p] = {k: sum(x["phases"][p][k] for x in st) for k in ("wall_mean", "wall_max", "cpu_sum", "cpu_max", "calls")}
        # Load imbalance: the slowest rank's CPU time against the mean, over the whole run.
        cpu_max_total = sum(x["phases"][p]["cpu_max"] for x in st)
        ph[p]["imbalance"] = cpu_max_total / (ph[p]["cpu_sum"] / ranks) if ph[p]["cpu_sum"] > 0 else float("nan")
    s["phases"] = ph
    c = {k: sum(x["counters"].get(k, 0) for x in st) for k in st[0]["counters"]}
    c.setdefault("proximity_filtered", 0)
    c.setdefault("swept_updates", 0)  # (older labels: no incremental skin updates)
    c.setdefault("swept_rebuilds", s["phases"]["swept_broad"]["calls"] if "phases" in s else 0)
    s["counters"] = c

    def rate(n, *phases):
        t = sum(ph[p]["cpu_sum"] for p in phases)
        return n / t if t > 0 else float("nan")

    s["rates"] = {
        "broad primitives/s": rate(c["broad_primitives"], "proximity_broad", "swept_broad"),
        "broad candidates/s": rate(c["proximity_candidates"] + c["swept_candidates"], "proximity_broad", "swept_broad"),
        "barrier pairs/s": rate(c["barrier_pairs"], "barrier"),
        "barrier active pairs/s": rate(c["barrier_active"], "barrier"),
        "barrier energy pairs/s": rate(c["energy_pairs"], "barrier_energy"),
        "friction pairs/s": rate(c["friction_pairs"], "friction", "friction_energy"),
        "CCD queries/s": rate(c["ccd_queries"], "ccd"),
        "couplings/s": rate(c["couplings"], "couplings"),
    }
    s["rebuilds"] = c["pattern_rebuilds"]
    s["cpu_share"] = r.get("cpu_share")
    return s


def fmt_rate(v):
    if not (v == v) or v == float("inf"):
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    if v >= 1e3:
        return f"{v / 1e3:.0f}K"
    return f"{v:.0f}"


def report(data, compare=None):
    meta = data["meta"]
    labels = list(data["runs"])
    L = []
    L.append("# Contact benchmark: broad phase, barrier, friction, CCD and the coupling pattern per Newton iteration\n")
    L.append("- driver: `bench/contact.py` (runs `bench/contact.cpp` = `bench-contact`, one `mpirun` per configuration); "
             "commands below, from the repository root.")
    L.append(f"- host: {meta['host']}; cores (`nproc`): {meta['nproc']}; the machine is shared with other engineers' "
             "builds and runs: the load average is recorded at the start and end of every run, and the CPU share "
             "(CPU time the least served rank got / wall time) beside it.")
    L.append("- every rank single-threaded (`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`), `mpirun --bind-to none --mca "
             "mpi_yield_when_idle 1`; direct solver everywhere (`solver.linear.pc=cholesky`: MUMPS on any rank "
             "count, one sequential MUMPS Cholesky per rank when no matrix entry couples two ranks), so 1 and 2 ranks take the same Newton iterations from the same start.")
    L.append("- each configuration starts from a warm checkpoint (weft run for the warm-up frames: the cloth is on "
             "the sphere / the panels are piling up) and times the next steps; `drape90` is drape_default at "
             "90x90 (8100 cloth vertices, ~2x 64x64) for weak scaling; `pair128` is `bench/cases/drape_pair.yaml`, two "
             "drape_default scenes side by side in one 128x64 cloth (the same mesh spacing), the replicated-subdomain "
             "weak-scaling companion.")
    L.append("- time split (mean over ranks, so the parts add up to the step's wall time): **contact** = every "
             "contact phase (ContactTimers: halo, proximity and swept broad phase, coupling pattern incl. matrix "
             "re-preallocation, barrier assembly, barrier energy in line-search trials, friction lag / assembly / "
             "energy, CCD, gap); **solve** = KSP; **elastic** = the rest of the assembly: inertia, membrane, bending, "
             "strain limit and the final MatAssembly / VecAssembly (which also moves the off-process contact entries, "
             "hence its growth at 2 ranks in the stack); **other** = the rest (elastic energies of line-search trials, vector updates, MPI waits "
             "outside contact phases).")
    L.append("- CPU s/iteration: the busiest rank's thread CPU time per Newton iteration (a rank waiting in MPI "
             "polls, so waits count too); with other jobs on the cores the wall time is inflated by ~1 / CPU share.")
    L.append("- throughput per core = items summed over ranks / thread CPU seconds summed over ranks (load-robust); "
             "imbalance = slowest rank's CPU time / mean, per phase.\n")
    if "notes" in data:
        L.append("## Notes\n")
        L.extend(data["notes"])
        L.append("")
    if len(labels) >= 2:
        first, last = labels[0], labels[-1]
        if compare:
            first, last = compare
        L.append(f"## Summary: `{first}` -> `{last}`\n")
        L.append("ms per Newton iteration (mean over ranks) and contact share of the wall time; the same "
                 "warm start and steps, so the same Newton iterations. Wall times carry the machine's load "
                 "(see the CPU share columns below); CPU s/iteration is the busiest rank's thread CPU time.\n")
        L.append("| config | contact % | s/iteration | CPU s/iteration | contact ms | swept broad | proximity broad | "
                 "couplings (rebuilds/its) | barrier | friction | CCD | solve ms |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in CONFIGS:
            a, b = data["runs"][first].get(name), data["runs"][last].get(name)
            if not a or not b or a["status"] != "ok" or b["status"] != "ok":
                continue
            sa, sb = summary(a), summary(b)

            def ms(s, *ps):
                return 1e3 * sum(s["phases"][p]["wall_mean"] for p in ps) / max(1, s["newton"])

            def pair(fa, fb, fmt="{:.1f}"):
                return fmt.format(fa) + " -> " + fmt.format(fb)

            L.append(f"| {name} | {pair(100 * sa['contact_share'], 100 * sb['contact_share'])} | "
                     f"{pair(sa['per_iter'], sb['per_iter'], '{:.3f}')} | "
                     f"{pair(sa['cpu_per_iter'], sb['cpu_per_iter'], '{:.3f}')} | "
                     f"{pair(1e3 * sa['contact'] / max(1, sa['newton']), 1e3 * sb['contact'] / max(1, sb['newton']))} | "
                     f"{pair(ms(sa, 'swept_broad'), ms(sb, 'swept_broad'))} | "
                     f"{pair(ms(sa, 'proximity_broad'), ms(sb, 'proximity_broad'))} | "
                     f"{pair(ms(sa, 'couplings'), ms(sb, 'couplings'))} ({sa['rebuilds']} -> {sb['rebuilds']} / {sb['newton']}) | "
                     f"{pair(ms(sa, 'barrier', 'barrier_energy'), ms(sb, 'barrier', 'barrier_energy'))} | "
                     f"{pair(ms(sa, 'friction', 'friction_energy', 'friction_lag'), ms(sb, 'friction', 'friction_energy', 'friction_lag'))} | "
                     f"{pair(ms(sa, 'ccd'), ms(sb, 'ccd'))} | "
                     f"{pair(1e3 * sa['solve'] / max(1, sa['newton']), 1e3 * sb['solve'] / max(1, sb['newton']))} |")
        L.append("")
    for label in labels:
        runs = data["runs"][label]
        info = data.get("labels", {}).get(label, {})
        L.append(f"## {label}\n")
        if info:
            L.append(f"- date: {info.get('date', '?')}; commit: {info.get('commit', '?')}; "
                     f"command: `{info.get('command', '?')}`\n")
        L.append("| config | vertices (dynamic) | ranks | steps | Newton its | s/step | s/iteration | contact % | "
                 "solve % | elastic % | other % | CPU s/iteration | pattern rebuilds | CPU share | load start / end |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for name, r in runs.items():
            if r["status"] != "ok":
                L.append(f"| {name} | | | | | | | | | | | | | {r['status']} |")
                continue
            s = summary(r)
            w = s["wall_mean"]
            L.append(f"| {name} | {r['vertices']} ({r['dynamic_vertices']}) | {r['ranks']} | "
                     f"{r['first_step'] + 1}-{r['first_step'] + s['steps']} | {s['newton']} | {s['per_step']:.2f} | "
                     f"{s['per_iter']:.4f} | **{100 * s['contact'] / w:.1f}** | {100 * s['solve'] / w:.1f} | "
                     f"{100 * s['elastic'] / w:.1f} | {100 * s['other'] / w:.1f} | {s['cpu_per_iter']:.4f} | "
                     f"{s['rebuilds']} / {s['newton']} | "
                     f"{s['cpu_share']:.2f} | {r['load_at_start']} / {r['load_at_end']} |")
        L.append("\nContact phases, ms per Newton iteration (mean over ranks; at 2 ranks: imbalance in brackets)\n")
        L.append("| config | " + " | ".join(PHASES) + " |")
        L.append("|---|" + "---:|" * len(PHASES))
        for name, r in runs.items():
            if r["status"] != "ok":
                continue
            s = summary(r)
            cells = []
            for p in PHASES:
                v = 1e3 * s["phases"][p]["wall_mean"] / max(1, s["newton"])
                imb = s["phases"][p]["imbalance"]
                cells.append(f"{v:.2f}" + (f" ({imb:.2f})" if r["ranks"] > 1 and imb == imb and v > 0.05 else ""))
            L.append(f"| {name} | " + " | ".join(cells) + " |")
        L.append("\nThroughput per core (items per CPU second)\n")
        keys = list(next(summary(r) for r in runs.values() if r["status"] == "ok")["rates"])
        L.append("| config | " + " | ".join(keys) + " |")
        L.append("|---|" + "---:|" * len(keys))
        for name, r in runs.items():
            if r["status"] != "ok":
                continue
            s = summary(r)
            L.append(f"| {name} | " + " | ".join(fmt_rate(s["rates"][k]) for k in keys) + " |")
        L.append("\nWork per Newton iteration (summed over ranks)\n")
        ckeys = ["broad_primitives", "proximity_candidates", "proximity_filtered", "swept_rebuilds", "swept_updates", "swept_candidates", "barrier_pairs", "barrier_active",
                 "energy_pairs", "friction_pairs", "ccd_queries", "couplings", "halo_vertices"]
        L.append("| config | " + " | ".join(ckeys) + " |")
        L.append("|---|" + "---:|" * len(ckeys))
        for name, r in runs.items():
            if r["status"] != "ok":
                continue
            s = summary(r)
            L.append(f"| {name} | " + " | ".join(f"{s['counters'][k] / max(1, s['newton']):.0f}" for k in ckeys) + " |")
        # Targets
        L.append("\nTargets\n")
        d1, d2, d90 = runs.get("drape64x1"), runs.get("drape64x2"), runs.get("drape90x2")
        for r in (d1, d2):
            if r and r["status"] == "ok":
                s = summary(r)
                sh = 100 * s["contact_share"]
                L.append(f"- contact <= 30% of a Newton iteration on drape_default, {r['ranks']} rank(s): **{sh:.1f}%** "
                         f"-> {'met' if sh <= 30 else 'NOT met'}")
        if d1 and d90 and d1["status"] == "ok" and d90["status"] == "ok":
            s1, s2 = summary(d1), summary(d90)
            e_step, e_it = s1["per_step"] / s2["per_step"], s1["per_iter"] / s2["per_iter"]
            L.append(f"- weak scaling >= 80% (drape 64x64 on 1 rank: {d1['dynamic_vertices']} cloth vertices; 90x90 on 2 "
                     f"ranks: {d90['dynamic_vertices'] / 2:.0f} per rank): per step {s1['per_step']:.2f} s vs "
                     f"{s2['per_step']:.2f} s -> **{100 * e_step:.0f}%** ({s1['newton']} vs {s2['newton']} Newton "
                     f"iterations over {s1['steps']} steps); per Newton iteration {s1['per_iter']:.4f} s vs "
                     f"{s2['per_iter']:.4f} s -> **{100 * e_it:.0f}%** -> {'met' if e_step >= 0.8 else 'NOT met'} per "
                     f"step, {'met' if e_it >= 0.8 else 'NOT met'} per iteration")
            L.append(f"  - in CPU time (the busiest rank's thread CPU per step, robust to other jobs on the machine; "
                     f"MPI waits poll and count): per step {s1['cpu_max'] / s1['steps']:.2f} s vs "
                     f"{s2['cpu_max'] / s2['steps']:.2f} s -> **{100 * s1['cpu_max'] / s2['cpu_max']:.0f}%**; per "
                     f"iteration {100 * s1['cpu_per_iter'] / s2['cpu_per_iter']:.0f}%")
            c1 = s1["contact"] / max(1, s1["newton"])
            c2 = s2["contact"] / max(1, s2["newton"])
            L.append(f"  - contact part alone per iteration: {1e3 * c1:.1f} ms vs {1e3 * c2:.1f} ms -> {100 * c1 / c2:.0f}%; "
                     f"solve {1e3 * s1['solve'] / max(1, s1['newton']):.1f} ms vs {1e3 * s2['solve'] / max(1, s2['newton']):.1f} ms; "
                     f"elastic {1e3 * s1['elastic'] / max(1, s1['newton']):.1f} ms vs "
                     f"{1e3 * s2['elastic'] / max(1, s2['newton']):.1f} ms")
        for key, what in (("pair128x2", "bench/cases/drape_pair.yaml, two drapes side by side in one 128x64 cloth"
                                        " (MUMPS distributed since session 8c; before, the only direct form)"),
                          ("pair128x2sub", "the same cloth, substructured Cholesky (-weft_substructure)"),
                          ("twin64x2", "bench/cases/drape_twin.yaml, two separate 64x64 drapes")):
            dp = runs.get(key)
            if not (d1 and dp and d1["status"] == "ok" and dp["status"] == "ok"):
                continue
            s1, s2 = summary(d1), summary(dp)
            e_step, e_it = s1["per_step"] / s2["per_step"], s1["per_iter"] / s2["per_iter"]
            L.append(f"- weak scaling, replicated subdomain (drape 64x64 on 1 rank vs {what}, on 2 ranks: "
                     f"{dp['dynamic_vertices'] / 2:.0f} cloth vertices per rank): per step {s1['per_step']:.2f} s vs {s2['per_step']:.2f} s -> "
                     f"**{100 * e_step:.0f}%** ({s1['newton']} vs {s2['newton']} Newton iterations over {s1['steps']} "
                     f"steps); per Newton iteration **{100 * e_it:.0f}%** -> {'met' if e_step >= 0.8 else 'NOT met'} "
                     f"per step, {'met' if e_it >= 0.8 else 'NOT met'} per iteration")
            c1 = s1["contact"] / max(1, s1["newton"])
            c2 = s2["contact"] / max(1, s2["newton"])
            L.append(f"  - per iteration: contact {1e3 * c1:.1f} ms vs {1e3 * c2:.1f} ms; "
                     f"solve {1e3 * s1['solve'] / max(1, s1['newton']):.1f} ms vs {1e3 * s2['solve'] / max(1, s2['newton']):.1f} ms; "
                     f"elastic {1e3 * s1['elastic'] / max(1, s1['newton']):.1f} ms vs "
                     f"{1e3 * s2['elastic'] / max(1, s2['newton']):.1f} ms")
        if d1 and d2 and d1["status"] == "ok" and d2["status"] == "ok":
            s1, s2 = summary(d1), summary(d2)
            L.append(f"- (strong scaling, drape 64x64: 2 ranks {s1['per_step'] / s2['per_step']:.2f}x faster per step)")
        L.append("\nCommands\n")
        for name, r in runs.items():
            L.append(f"- {name}: `{r['command']}` (warm start: `{r['warm_command']}`)")
        L.append("")

    with open(os.path.join(RESULTS, "contact.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def plot(data, compare=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot (apt-get install -y python3-matplotlib)")
        return
    labels = list(compare) if compare else list(data["runs"])[-2:]
    short = {lab: ("before" if k == 0 else "after") if len(labels) == 2 else lab for k, lab in enumerate(labels)}
    groups = [[n for n in CONFIGS if n.startswith(("drape", "pair"))], [n for n in CONFIGS if n.startswith("stack")]]
    parts = PHASES + ["elastic", "solve", "other"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    for ax, names in zip(axes, groups):
        ticks, ticklabels, x = [], [], 0.0
        for name in names:
            for lab in labels:
                r = data["runs"].get(lab, {}).get(name)
                if not r or r["status"] != "ok":
                    continue
                s = summary(r)
                bottom = 0.0
                for p in parts:
                    v = s["phases"][p]["wall_mean"] if p in PHASES else s[p]
                    v = 1e3 * v / max(1, s["newton"])
                    ax.bar(x, v, bottom=bottom, color=COLORS[p], edgecolor="white", linewidth=0.3,
                           label=p if (ax is axes[0] and name == names[0] and lab == labels[0]) else None)
                    bottom += v
                ax.text(x, bottom, f"{100 * s['contact_share']:.0f}%", ha="center", va="bottom", fontsize=8)
                ticks.append(x)
                ticklabels.append(f"{name}\n{short[lab]}")
                x += 1.0
            x += 0.6
        ax.set_xticks(ticks)
        ax.set_xticklabels(ticklabels, fontsize=8)
        ax.set_ylabel("ms per Newton iteration (mean over ranks)")
    axes[0].set_title("drape_default (64x64 at 1 and 2 ranks, 90x90 at 2)", fontsize=10)
    axes[1].set_title("cloth_stack (1 and 2 ranks)", fontsize=10)
    fig.suptitle("Contact benchmark: time per Newton iteration, " + " vs ".join(f"{short[l]} = {l}" for l in labels)
                 + " (label: contact share)", fontsize=10)
    handles, names_ = axes[0].get_legend_handles_labels()
    fig.legend(handles, names_, fontsize=8, ncol=1, loc="center right")
    fig.tight_layout(rect=(0, 0, 0.88, 0.95))
    fig.savefig(os.path.join(RESULTS, "contact.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--label", default="current")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--warm-dir", default=None)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--bench-exe", default=None,
                    help="bench-contact binary to time (default: BUILD/bin/bench-contact), e.g. an older build for "
                         "a before/after comparison; the warm checkpoints still come from BUILD/bin/weft")
    ap.add_argument("--compare", nargs=2, default=None, metavar=("LABEL_A", "LABEL_B"),
                    help="the summary table's two labels (default: the first and the last)")
    args = ap.parse_args()
    args.warm_dir = args.warm_dir or os.path.join(args.build, "contact_warm")
    path = os.path.join(RESULTS, "contact.json")
    data = json.load(open(path)) if os.path.exists(path) else {"runs": {}, "labels": {}}
    if not args.report_only:
        try:
            commit = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True, text=True).stdout.strip()
        except OSError:
            commit = "?"
        import sys
        data["meta"] = {"host": platform.node(), "nproc": os.cpu_count()}
        cmdline = "/usr/bin/python3 " + " ".join(sys.argv)
        prev = data.setdefault("labels", {}).get(args.label)
        if prev and args.label in data.get("runs", {}):  # adding configurations to a label
            prev["command"] += " ; " + cmdline
            prev["date"] += " / " + datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
        else:
            data["labels"][args.label] = {
                "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "commit": commit,
                "command": cmdline, "load_before": loadavg()}
        runs = data.setdefault("runs", {}).setdefault(args.label, {})
        for name in args.configs.split(","):
            runs[name] = run_config(args, name)
            with open(path, "w") as f:
                json.dump(data, f, indent=1)
        data["labels"][args.label]["load_after"] = loadavg()
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
    data.setdefault("compare", data.get("compare"))
    if args.compare:
        data["compare"] = list(args.compare)
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
    report(data, data.get("compare"))
    plot(data, data.get("compare"))


if __name__ == "__main__":
    main()
