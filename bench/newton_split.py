#!/usr/bin/python3
"""Newton-iteration CPU split, two builds back to back (issue 21): for each bench/contact.py
configuration, runs build A's and build B's bench-contact one after the other from the same
warm checkpoint and tabulates, per Newton iteration, the busiest rank's thread CPU time of
the whole step and of its phases: assembly (elastic terms + barrier + friction), of it the
elastic terms, the barrier and the friction, the linear solve (factorisation + triangular
solves), the line search (CCD, trial energies), the contact layer's work outside assembly
(broad phases, coupling pattern incl. matrix rebuilds, CCD, trial barrier energies, gap: the last
three also inside the line search), the pattern rebuilds per iteration and the share of iterations
whose couplings outgrew the pattern and went onto its diagonal instead (ContactPotential's rebuild
gap). CPU time, not wall time: the machine is shared, and the wall time of a phase grows with the
load of the other processes.

    /usr/bin/python3 bench/newton_split.py --exe-a A/bin/bench-contact --exe-b build/bin/bench-contact \\
        [--label-a main] [--label-b asm] [--configs soft64x1,soft64x2,...] [--warm-build build] \\
        [--warm-dir build/contact_warm] [--extra-b '--set solver.linear.ksp=cg'] [-o bench/results/newton_split.md]

Run from the repository root. The warm checkpoints are bench/contact.py's (made with
--warm-build's weft when missing). Both bench-contact binaries must print the per-step
`assembly_cpu_max` ... fields (bench/contact.cpp since issue 21's assembly work).
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contact  # noqa: E402  (CONFIGS, warm_file, run, MPI, case_args)


def measure(args, exe, name, extra):
    case, res, ranks, warm, frames, *more = contact.CONFIGS[name]
    wargs = types.SimpleNamespace(build=args.warm_build, warm_dir=args.warm_dir, timeout=args.timeout)
    wpath, _ = contact.warm_file(wargs, case, res, warm)
    cmd = contact.MPI + ["-n", str(ranks), exe, "--case", case, "--restart", wpath, "--frames", str(frames),
                         "--json"] + contact.case_args(case, res) + (more[0] if more else []) + extra
    load = contact.loadavg()
    rc, out, err = contact.run(cmd, args.timeout)
    r = {"config": name, "command": " ".join(cmd), "load_at_start": load, "load_at_end": contact.loadavg()}
    for line in (out or "").splitlines():
        if line.startswith("RESULT "):
            r.update(json.loads(line[7:]))
    r["status"] = "ok" if rc == 0 and "steps" in r else f"failed ({rc})"
    return r


def split(r):
    st = r["steps"]
    its = sum(s["newton_iters"] for s in st)
    tot = lambda k: sum(s[k] for s in st)  # noqa: E731
    # a phase an older build does not time counts 0 (its time is then in its parent phase)
    ph = lambda p: sum(s["phases"][p]["cpu_max"] for s in st if p in s["phases"])  # noqa: E731
    inside = ("barrier", "friction")  # contact phases timed inside the assembly
    contact_rest = sum(ph(p) for p in st[0]["phases"] if p not in inside)
    return {
        "its": its,
        "rebuilds": sum(s["counters"]["pattern_rebuilds"] for s in st),
        # iterations whose missing couplings went onto the diagonal (older builds: none)
        "absorbing": sum(s["counters"].get("pattern_absorbing", 0) for s in st),
        "cpu": tot("cpu_max") / its,
        "assembly": tot("assembly_cpu_max") / its,
        "elastic": tot("elastic_cpu_max") / its,
        "barrier": ph("barrier") / its,
        "friction": ph("friction") / its,
        "solve": tot("solve_cpu_max") / its,
        "line_search": tot("line_search_cpu_max") / its,
        "contact_rest": contact_rest / its,
        "wall": tot("wall_max") / its,
        # all threads of the busiest process (library helper threads too); older builds lack it
        "process": tot("process_cpu_max") / its if all("process_cpu_max" in x for x in st) else float("nan"),
        "swept": ph("swept_broad") / its,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe-a", required=True)
    ap.add_argument("--exe-b", required=True)
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    ap.add_argument("--extra-a", default="")
    ap.add_argument("--extra-b", default="")
    ap.add_argument("--configs", default="soft64x1,soft64x2,drape64x1,drape64x2,stack x1,stack x2")
    ap.add_argument("--warm-build", default="build")
    ap.add_argument("--warm-dir", default="build/contact_warm")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json", default="", help="also keep the raw results here")
    ap.add_argument("-o", "--output", default="bench/results/newton_split.md")
    args = ap.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    for name in args.configs.split(","):
        pair = []
        for label, exe, extra in ((args.label_a, args.exe_a, args.extra_a), (args.label_b, args.exe_b, args.extra_b)):
            r = measure(args, exe, name, shlex.split(extra))
            r["label"] = label
            msg = f"{name} {label}: {r['status']}"
            if r["status"] == "ok":
                s = split(r)
                msg += f", {s['its']} its, {1e3 * s['cpu']:.1f} ms CPU/it, load {r['load_at_start']}"
            print(msg, flush=True)
            pair.append(r)
        rows.append(pair)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    lines = [f"## {started:%Y-%m-%d %H:%M} UTC, {platform.node()}, nproc {os.cpu_count()}, "
             f"A = {args.label_a}, B = {args.label_b}", "",
             "    /usr/bin/python3 bench/newton_split.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]), "",
             "ms of the busiest rank's thread CPU per Newton iteration (assembly = elastic + barrier + friction; "
             "contact = the contact layer's phases outside assembly: broad phases, coupling pattern with matrix "
             "rebuilds, CCD, trial barrier energies, gap; its CCD and trial energies are also in the line search).", "",
             "process CPU = all threads of the busiest process (OpenMP / BLAS helper threads included); "
             "swept = the swept broad phase (ContactModel::update_swept, part of contact).", "",
             "| config | build | Newton its | rebuilds / it | absorbing / it | CPU / it | process CPU / it | assembly | elastic | barrier "
             "| friction | solve | line search | contact | swept | wall / it | load (start) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for pair in rows:
        for r in pair:
            if r["status"] != "ok":
                lines.append(f"| {r['config']} | {r['label']} | {r['status']} ||||||||||||||")
                continue
            s = split(r)
            ms = lambda k: f"{1e3 * s[k]:.1f}"  # noqa: E731
            lines.append(f"| {r['config']} | {r['label']} | {s['its']} | {s['rebuilds'] / s['its']:.3f} | {s['absorbing'] / s['its']:.3f} "
                         f"| {ms('cpu')} "
                         f"| {ms('process')} | {ms('assembly')} | {ms('elastic')} | {ms('barrier')} | {ms('friction')} "
                         f"| {ms('solve')} | {ms('line_search')} | {ms('contact_rest')} | {ms('swept')} | {ms('wall')} "
                         f"| {r['load_at_start']} |")
        ok = [r for r in pair if r["status"] == "ok"]
        if len(ok) == 2:
            a, b = split(ok[0]), split(ok[1])
            q = lambda k: f"{b[k] / a[k]:.2f}" if a[k] > 0 else ""  # noqa: E731
            lines.append(f"| {pair[0]['config']} | B / A | | | | {q('cpu')} | {q('process')} | {q('assembly')} "
                         f"| {q('elastic')} | {q('barrier')} | | {q('solve')} | {q('line_search')} | {q('contact_rest')} "
                         f"| {q('swept')} | {q('wall')} | |")
    lines.append("")
    lines.append("Commands (one per run, A then B per configuration):")
    lines.append("")
    for pair in rows:
        for r in pair:
            lines.append(f"    {r['label']}: {r['command']}")
    text = "\n".join(lines) + "\n"
    with open(args.output, "a") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
