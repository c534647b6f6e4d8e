#!/usr/bin/python3
"""Every method on the same scenes (issue 18, "bench/methods"), and the XPBD chain against
the implicit Newton solution of the same springs.

Part 1 (`--part table`): hang_two_corners and drape_default at 64^2 and 128^2 vertices, each
method (cipc, mass_spring, pd, pbd, xpbd) for a few frames on one rank: wall time per step
(mean of /frames/stats/wall_s), iterations per step (Newton iterations for cipc and
mass_spring, PD iterations, sweeps x substeps for pbd/xpbd), maximum strain, energy when the
method reports one, and weft-verify's verdict. Writes bench/results/methods_table.json,
bench/results/methods.md and bench/results/methods.png.

Part 2 (`--part chain`): cases/chain_xpbd.yaml (20 particles of 1 kg, compliance 1e-8 m/N,
so springs k = 1 / alpha = 1e8 N/m) with 50, 100 and 1000 iterations. For every step k the
reference is implicit Euler on the same springs, solved here by projected Newton to a
residual of 1e-9 from the XPBD state at step k (x_k, v_k = (x_k - x_{k-1}) / h, which is
exactly XPBD's velocity: no damping, no contact): so the comparison isolates the error of
the projection solve, step by step, without the chain's chaotic divergence over 100 frames.
Errors: the spring tension T = (|d| - L) / alpha, max over springs |T - T_ref| /
max |T_ref|, and the position max |x - x_ref| / max |x_ref - x_k|; maximum over the steps.

    /usr/bin/python3 bench/methods.py [--build build] [--part table,chain] [--frames 5]
        [--cipc-frames 3,2] [--timeout 600]

Run from the repository root, with /usr/bin/python3 (numpy, matplotlib); HDF5 datasets are
read with h5dump.
"""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import time

import numpy as np

RESULTS = "bench/results"
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n", "1"]
METHODS = ["cipc", "mass_spring", "pd", "pbd", "xpbd"]
CASES = ["hang_two_corners", "drape_default"]
ITER_KEYS = ["newton_iters", "iterations"]


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


def h5(path, dataset):
    """A dataset as a flat float array (h5dump, 17 significant digits)."""
    out = subprocess.run(["h5dump", "-y", "-w", "0", "-m", "%.17g", "-d", dataset, path], capture_output=True,
                         text=True).stdout
    i = out.find("DATA {")
    if i < 0:
        return None
    body = out[i + 6:out.rfind("}", 0, out.rfind("}"))]
    return np.array([float(t) for t in re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", body)])


def stat_names(path):
    out = subprocess.run(["h5ls", path + "/frames/stats"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.strip()]


def one(args, case, res, method, frames):
    os.makedirs(args.out_dir, exist_ok=True)
    out = os.path.join(args.out_dir, f"{case}_{res}_{method}.h5")
    cmd = MPI + [os.path.join(args.build, "bin", "weft"), f"cases/{case}.yaml", "--set", f"method={method}",
                 "--set", f"objects.0.mesh.resolution=[{res},{res}]", "--frames", str(frames), "-o", out]
    load = loadavg()
    t0 = time.time()
    rc, log = run(cmd, args.timeout)
    r = {"case": case, "res": res, "method": method, "frames": frames, "command": " ".join(cmd),
         "run_s": round(time.time() - t0, 1), "load": load,
         "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")}
    if rc is None:
        r["status"] = f"timeout (> {args.timeout:.0f} s)"
        return r
    if rc != 0:
        r["status"] = f"weft exit {rc}: " + (log.strip().splitlines() or [""])[-1][:120]
        return r
    names = stat_names(out)
    wall = h5(out, "/frames/stats/wall_s")
    r["step_s"] = float(np.mean(wall[1:])) if wall is not None and len(wall) > 1 else None
    for k in ITER_KEYS:
        if k in names:
            it = h5(out, "/frames/stats/" + k)
            r["iterations"] = float(np.mean(it[1:]))
            break
    if "max_strain" in names:
        r["max_strain"] = float(np.max(h5(out, "/frames/stats/max_strain")))
    if "energy" in names:
        r["energy"] = float(h5(out, "/frames/stats/energy")[-1])
    vrc, vout = run([os.path.join(args.build, "bin", "weft-verify"), out, "--json"], 1200)
    try:
        v = json.loads(vout)
        r["status"] = "PASS" if v.get("pass") else "FAIL"
        r["failed"] = [c["name"] for c in v.get("checks", []) if not c.get("pass")]
    except (TypeError, ValueError):
        r["status"] = f"weft-verify exit {vrc}"
    return r


def fmt(x, f):
    return "" if x is None else format(x, f)


def table_md(rows):
    L = ["## Every method on the same scenes (bench/methods.py --part table)", "",
         "One rank, `nproc` = %d (the machine is shared; load average at the start of each run in the "
         "table), Release build. Time per step: mean of `/frames/stats/wall_s` over the steps (wall clock). "
         "Iterations: mean per step (Newton iterations for cipc and mass_spring, PD iterations, sweeps x "
         "substeps for pbd/xpbd). Max strain: the largest `max_strain` of any frame (each method's own "
         "measure: cipc the triangles' largest singular value, the springs and pbd/xpbd the edges' "
         "stretch). Energy: the last frame's `energy` statistic (each method's own total: not comparable "
         "across methods). Verdict: `weft-verify --json` on the result file." % os.cpu_count(), "",
         "| case | res | method | frames | s / step | steps/s | iterations | max strain | energy (J) | verdict | "
         "load | date |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        verdict = r["status"] + (" (" + ", ".join(r["failed"]) + ")" if r.get("failed") else "")
        sps = 1.0 / r["step_s"] if r.get("step_s") else None
        L.append(f"| {r['case']} | {r['res']}^2 | {r['method']} | {r['frames']} | {fmt(r.get('step_s'), '.4f')} | "
                 f"{fmt(sps, '.1f')} | {fmt(r.get('iterations'), '.1f')} | {fmt(r.get('max_strain'), '.4f')} | "
                 f"{fmt(r.get('energy'), '.4g')} | {verdict} | {r['load'].split()[0]} | {r['date']} |")
    L += ["", "Commands:", ""] + [f"    {r['command']}" for r in rows] + [""]
    return L


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, case in zip(axes, CASES):
        for k, res in enumerate([64, 128]):
            vals = [next((r.get("step_s") for r in rows if r["case"] == case and r["res"] == res and
                          r["method"] == m), None) for m in METHODS]
            xs = np.arange(len(METHODS)) + (k - 0.5) * 0.38
            ax.bar(xs, [v or 0 for v in vals], width=0.38, label=f"{res}^2")
        ax.set_xticks(np.arange(len(METHODS)))
        ax.set_xticklabels(METHODS)
        ax.set_yscale("log")
        ax.set_title(case + " (1 rank)")
        ax.set_ylabel("wall seconds per step")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "methods.png"), dpi=110)


# ---- Part 2: the chain ----

def newton_step(x, v, h, g, m, pinned, springs, L, k, x0):
    """Implicit Euler on springs k (|d| - L)^2 / 2: minimise 1/2 |y - xt|_M^2 + h^2 sum springs,
    projected Newton (spring Hessians clamped PSD) with backtracking, from x0, to |grad| <= 1e-9 h^2 x the weight."""
    n = len(x)
    xt = x + h * v + h * h * g
    free = ~pinned
    y = x0.copy()
    y[pinned] = x[pinned]

    def energy_grad_hess(y, hess=True):
        E = 0.5 * np.sum(m[:, None] * (y - xt) ** 2)
        G = m[:, None] * (y - xt)
        H = np.diag(np.repeat(m, 3)) if hess else None
        for s, (i, j) in enumerate(springs):
            d = y[j] - y[i]
            l = np.linalg.norm(d)
            u = d / l
            E += h * h * 0.5 * k * (l - L[s]) ** 2
            f = h * h * k * (l - L[s]) * u
            G[j] += f
            G[i] -= f
            if hess:
                K = h * h * k * (np.outer(u, u) + max(0.0, 1.0 - L[s] / l) * (np.eye(3) - np.outer(u, u)))
                for a, b, sg in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
                    H[3 * a:3 * a + 3, 3 * b:3 * b + 3] += sg * K
        return E, G, H

    idx = np.repeat(free, 3)
    scale = h * h * np.max(m) * 9.81 * n
    for it in range(100):
        E, G, H = energy_grad_hess(y)
        g_free = G.reshape(-1)[idx]
        if np.max(np.abs(g_free)) <= 1e-9 * scale:
            break
        p = np.zeros(3 * n)
        p[idx] = np.linalg.solve(H[np.ix_(idx, idx)], -g_free)
        p = p.reshape(n, 3)
        a = 1.0
        while a > 1e-12:
            E1, _, _ = energy_grad_hess(y + a * p, hess=False)
            if E1 <= E + 1e-4 * a * np.dot(g_free, p.reshape(-1)[idx]):
                break
            a *= 0.5
        y = y + a * p
    return y


def chain(args):
    case = "cases/chain_xpbd.yaml"
    hh = 0.0166666666666667
    alpha = 1e-8
    k = 1.0 / alpha
    g = np.array([0.0, -9.81, 0.0])
    out = []
    traj = None  # the Newton trajectory from the case's start, computed once
    for its in args.chain_iterations:
        path = os.path.join(args.out_dir, f"chain_{its}.h5")
        cmd = MPI + [os.path.join(args.build, "bin", "weft"), case, "--set", f"xpbd.iterations={its}",
                     "--frames", str(args.chain_frames), "-o", path]
        t0 = time.time()
        rc, log = run(cmd, args.timeout)
        if rc != 0:
            out.append({"iterations": its, "status": f"weft exit {rc}"})
            continue
        X = h5(path, "/frames/positions").reshape(-1, 20, 3)
        rest = h5(path, "/mesh/rest_positions").reshape(20, 3)
        springs = [(i, i + 1) for i in range(19)]
        L = np.array([np.linalg.norm(rest[i + 1] - rest[i]) for i, _ in springs])
        m = np.ones(20)
        pinned = np.zeros(20, bool)
        pinned[0] = True
        err_T, err_x = [], []
        for f in range(len(X) - 1):
            x = X[f]
            v = (X[f] - X[f - 1]) / hh if f > 0 else np.zeros_like(x)
            ref = newton_step(x, v, hh, g, m, pinned, springs, L, k, X[f + 1])
            T = np.array([(np.linalg.norm(X[f + 1][j] - X[f + 1][i]) - L[s]) * k for s, (i, j) in enumerate(springs)])
            Tr = np.array([(np.linalg.norm(ref[j] - ref[i]) - L[s]) * k for s, (i, j) in enumerate(springs)])
            err_T.append(np.max(np.abs(T - Tr)) / np.max(np.abs(Tr)))
            err_x.append(np.max(np.linalg.norm(X[f + 1] - ref, axis=1)) / np.max(np.linalg.norm(ref - x, axis=1)))
        if traj is None:
            traj = [X[0]]
            vv = np.zeros_like(X[0])
            for f in range(len(X) - 1):
                y = newton_step(traj[-1], vv, hh, g, m, pinned, springs, L, k, traj[-1] + hh * vv)
                vv = (y - traj[-1]) / hh
                traj.append(y)
        length = float(np.sum(L))
        err_traj = max(np.max(np.linalg.norm(X[f] - traj[f], axis=1)) for f in range(len(X))) / length
        tot = lambda P: sum(abs(np.linalg.norm(P[j] - P[i]) - L[s]) * k for s, (i, j) in enumerate(springs))
        err_ftraj = max(abs(tot(X[f]) - tot(traj[f])) / tot(traj[f]) for f in range(1, len(X)))
        out.append({"iterations": its, "status": "ok", "command": " ".join(cmd), "frames": len(X) - 1,
                    "traj_position": float(err_traj), "traj_total_force": float(err_ftraj),
                    "run_s": round(time.time() - t0, 1), "max_rel_tension": float(np.max(err_T)),
                    "mean_rel_tension": float(np.mean(err_T)), "final_rel_tension": float(err_T[-1]),
                    "max_rel_position": float(np.max(err_x)), "load": loadavg()})
        print(f"chain {its}: tension err max {np.max(err_T):.3g}, position err max {np.max(err_x):.3g}, "
              f"trajectory {err_traj:.3g} / force {err_ftraj:.3g}", flush=True)
    return out


def chain_md(rows):
    published = {50: "6%", 100: "2%", 1000: "0.5%"}
    L = ["## The XPBD chain against implicit Newton (bench/methods.py --part chain)", "",
         "cases/chain_xpbd.yaml: 20 particles of 1 kg, compliance 1e-8 m/N (k = 1 / alpha = 1e8 N/m), "
         "pinned at one end, falling from horizontal, h = 1/60 s, 1 substep, Gauss-Seidel. Reference per "
         "step: implicit Euler on the same springs, solved by projected Newton (residual 1e-9 of h^2 x the "
         "chain's weight) from XPBD's own state at that step, so each row measures the projection "
         "solve's error, not the divergence of two trajectories. Tension T = (|d| - L) / alpha per "
         "spring; relative error = max over springs |T - T_ref| / max |T_ref|, then the max (and mean) "
         "over the steps; position error = max |x - x_ref| / max |x_ref - x_k| (the step's largest "
         "displacement).", "",
         "Trajectory columns: the whole 100-frame run against a Newton implicit Euler run of the same "
         "springs from the same start (what the paper's fig. 10/11 compare): max over frames and "
         "particles of |x - x_Newton| / chain length (1.9 m), and max over frames of the relative error "
         "of the total constraint force sum |T|.", "",
         "| iterations | steps | per step: tension error, max over steps | mean | last step | per step: "
         "position error, max | trajectory: position / length | trajectory: total force | "
         "published (issue 18) |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["status"] != "ok":
            L.append(f"| {r['iterations']} | {r['status']} | | | | | {published.get(r['iterations'], '')} |")
            continue
        L.append(f"| {r['iterations']} | {r['frames']} | {100 * r['max_rel_tension']:.3g}% | "
                 f"{100 * r['mean_rel_tension']:.3g}% | {100 * r['final_rel_tension']:.3g}% | "
                 f"{100 * r['max_rel_position']:.3g}% | {100 * r.get('traj_position', float('nan')):.3g}% | "
                 f"{100 * r.get('traj_total_force', float('nan')):.3g}% | {published.get(r['iterations'], '')} |")
    L += ["", "Commands:", ""] + [f"    {r['command']}" for r in rows if r.get("command")] + [""]
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--part", default="table,chain")
    ap.add_argument("--frames", type=int, default=5)
    ap.add_argument("--cipc-frames", default="3,2", help="frames for cipc at 64^2, 128^2")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--res", default="64,128")
    ap.add_argument("--chain-iterations", default="50,100,1000")
    ap.add_argument("--chain-frames", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out-dir", default="build/bench_methods")
    args = ap.parse_args()
    args.chain_iterations = [int(x) for x in args.chain_iterations.split(",")]
    tpath = os.path.join(RESULTS, "methods_table.json")
    data = json.load(open(tpath)) if os.path.exists(tpath) else {"table": [], "chain": []}
    parts = args.part.split(",")
    t_start = time.time()
    if "table" in parts:
        cf = [int(x) for x in args.cipc_frames.split(",")]
        rows = []
        for case in CASES:
            for ri, res in enumerate(int(x) for x in args.res.split(",")):
                for method in args.methods.split(","):
                    frames = cf[min(ri, len(cf) - 1)] if method == "cipc" else args.frames
                    r = one(args, case, res, method, frames)
                    print(f"{case} {res} {method}: {r['status']} {fmt(r.get('step_s'), '.4f')} s/step "
                          f"({r['run_s']} s)", flush=True)
                    rows.append(r)
        keep = {(r["case"], r["res"], r["method"]): r for r in data["table"]}
        keep.update({(r["case"], r["res"], r["method"]): r for r in rows})
        data["table"] = sorted(keep.values(), key=lambda r: (CASES.index(r["case"]), r["res"],
                                                               METHODS.index(r["method"])))
        plot(data["table"])
    if "chain" in parts:
        data["chain"] = chain(args)
    data["total_s"] = round(time.time() - t_start, 1)
    with open(tpath, "w") as f:
        json.dump(data, f, indent=1)
    head = ["# Methods side by side (issue 18)", "",
            f"Driver `bench/methods.py` (`/usr/bin/python3 bench/methods.py`), commit "
            f"{subprocess.run(['git', 'log', '--oneline', '-1'], capture_output=True, text=True).stdout.strip()}, "
            f"{datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')}, nproc {os.cpu_count()}, load average "
            f"at the end {loadavg()}.", ""]
    body = (table_md(data["table"]) if data["table"] else []) + (chain_md(data["chain"]) if data["chain"] else [])
    old = open(os.path.join(RESULTS, "methods.md")).read() if os.path.exists(os.path.join(RESULTS, "methods.md")) else ""
    # Keep the earlier hand-measured PBD/XPBD speed section below the generated part.
    tail = old[old.find("# Position-based methods: speed"):] if "# Position-based methods: speed" in old else ""
    with open(os.path.join(RESULTS, "methods.md"), "w") as f:
        f.write("\n".join(head + body) + "\n" + ("\n#" + tail if tail else ""))


if __name__ == "__main__":
    main()
