#!/usr/bin/python3
"""Sequential sparse Cholesky: MUMPS against CHOLMOD, back to back, on one rank.

For each configuration, bench-contact runs the same steps twice in a row, once per
factorisation package (-pc_factor_mat_solver_type), and the table reports the CPU seconds
per Newton iteration of the stepping process (robust to a shared machine's load, unlike
wall time), the Newton iterations (which must agree) and the ratio.

    /usr/bin/python3 bench/solver_choice.py [--build build] [--configs drape_default,...]

Run from the repository root; prints a markdown table to stdout.
"""
import argparse
import datetime
import json
import os
import subprocess

PARTICLES_10K = ["--set", "objects.1.mesh.resolution=[10,100,10]", "--set", "objects.1.mesh.size=[0.036,0.396,0.036]",
                 "--set", "objects.1.transform.translate=[0,0.21,0]"]
# name: bench-contact arguments (warm start where the measured steps need contact)
CONFIGS = {
    "drape_default": ["--case", "cases/drape_default.yaml", "--warmup", "0", "--frames", "8"],
    "drape_soft": ["--case", "bench/cases/drape_soft.yaml", "--warmup", "8", "--frames", "3"],
    "hang_two_corners 128^2": ["--case", "cases/hang_two_corners.yaml", "--res", "128", "--warmup", "0", "--frames", "2"],
    "cloth_stack": ["--case", "cases/cloth_stack.yaml", "--warmup", "0", "--frames", "6"],
    "particles 10K": ["--case", "cases/particles_on_cloth.yaml", "--warmup", "12", "--frames", "1"] + PARTICLES_10K,
}


def run(build, args, package):
    cmd = ["mpirun", "--allow-run-as-root", "-n", "1", os.path.join(build, "bin", "bench-contact")] + args + \
          ["--set", "solver.linear.pc=cholesky", "--json", "-pc_factor_mat_solver_type", package]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    line = [l for l in out.splitlines() if l.startswith("RESULT ")]
    if not line:
        raise SystemExit("no RESULT line from: " + " ".join(cmd))
    r = json.loads(line[-1][7:])
    its = sum(s["newton_iters"] for s in r["steps"])
    cpu = sum(s["cpu_max"] for s in r["steps"])
    return its, cpu / its, " ".join(cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    a = ap.parse_args()
    print("date: %s; nproc: %d; load at start: %s\n" % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                                                       os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
    print("| config | Newton its (mumps / cholmod) | CPU s per it, mumps | CPU s per it, cholmod | cholmod / mumps |")
    print("|---|---|---:|---:|---:|")
    for name in a.configs.split(","):
        im, cm, _ = run(a.build, CONFIGS[name], "mumps")
        ic, cc, _ = run(a.build, CONFIGS[name], "cholmod")
        print("| %s | %d / %d | %.4f | %.4f | %.2f |" % (name, im, ic, cm, cc, cc / cm), flush=True)


if __name__ == "__main__":
    main()
