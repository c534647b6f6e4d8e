"""Opens a result in real ParaView (pvpython) as a user does and checks it against the HDF5
file itself (read with h5dump, independent of ParaView):
  pvpython paraview_check.py result OUT.h5 NAME,NAME,...   a weft result of a shell scene
  pvpython paraview_check.py sample DIR/primitives.h5      tests/unit/io/xdmf_test.cpp's sample
  pvpython paraview_check.py codim OUT.h5 NAME:CELLS:TYPE,...  rods / particles / volumes: cells per object
Prints one 'ok' line per check; exits 1 at the first failure.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "io", "paraview"))
import weft_paraview as wp  # noqa: E402
from paraview import servermanager as sm  # noqa: E402
from paraview import simple as pv  # noqa: E402


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def h5(path, dataset, start=None, count=None):
    """A dataset's values (flat, row-major) at full double precision, via h5dump."""
    cmd = ["h5dump", "-m", "%.17g", "-y", "-w", "0", "-d", dataset]  # -s/-c follow -d
    if start is not None:
        cmd += ["-s", ",".join(map(str, start)), "-c", ",".join(map(str, count))]
    text = subprocess.run(cmd + [path], check=True, capture_output=True, text=True).stdout
    body = text[text.index("DATA {") + 6: text.rindex("}")]
    body = body[: body.rindex("}")] if body.count("}") else body
    return [float(v) for v in re.findall(r"[-+0-9.eEnaifNAIF]+", body) if re.match(r"^[-+]?[0-9.]|^nan|^-?inf", v, re.I)]


def shape(path, dataset):
    text = subprocess.run(["h5dump", "-H", "-d", dataset, path], check=True, capture_output=True, text=True).stdout
    return [int(v) for v in re.search(r"SIMPLE \{ \( ([0-9, ]*) \)", text).group(1).split(",")]


def check_common(path, cell_types=None):
    """Default reader, times, pieces, points, exact last-frame coordinates, object ids."""
    reader, objects, times = wp.open_result(path)
    if reader.GetXMLName() != "Xdmf3ReaderS":
        fail("ParaView's default reader is %s, expected Xdmf3ReaderS" % reader.GetXMLName())
    ok("default reader %s" % reader.GetXMLName())
    want_times = h5(path, "/frames/time")
    if times != want_times:
        fail("time steps %s != /frames/time %s" % (times, want_times))
    ok("%d time steps equal /frames/time" % len(times))
    F, N, _ = shape(path, "/frames/positions")
    last = h5(path, "/frames/positions", (F - 1, 0, 0), (1, N, 3))
    ps = wp.pieces(reader, times[-1])
    if len(ps) != len(objects):
        fail("%d pieces for %d objects" % (len(ps), len(objects)))
    first = 0
    for i, (name, kind) in enumerate(objects):
        d = ps[i]
        n = d.GetNumberOfPoints()
        got = [c for p in range(n) for c in d.GetPoint(p)]
        if got != last[3 * first: 3 * (first + n)]:
            bad = next(k for k in range(len(got)) if got[k] != last[3 * first + k])
            fail("%s: point %d coordinate %d is %r, /frames/positions has %r" % (name, bad // 3, bad % 3, got[bad], last[3 * first + bad]))
        oid = d.GetCellData().GetArray("object_id")
        if oid is None or {int(oid.GetTuple1(c)) for c in range(d.GetNumberOfCells())} != {i}:
            fail("%s: cell array object_id is not %d everywhere" % (name, i))
        if cell_types is not None:
            types = sorted({d.GetCellType(c) for c in range(d.GetNumberOfCells())})
            if types != cell_types[i]:
                fail("%s: VTK cell types %s, expected %s" % (name, types, cell_types[i]))
        ok("%s (%s): %d points equal to the last frame's rows %d..%d, %d cells" % (name, kind, n, first, first + n - 1, d.GetNumberOfCells()))
        first += n
    if first != N:
        fail("the pieces hold %d points, /frames/positions %d" % (first, N))
    return reader, objects, times, ps


def check_names(path, names):
    """Block names as in the case: what the objects list says, and what ParaView's
    non-flattening XDMF3 reader (Xdmf3ReaderT) shows in its block hierarchy."""
    objects = wp.objects_of(wp.xdmf_of(path))
    if [o[0] for o in objects] != names:
        fail("objects %s, expected %s" % ([o[0] for o in objects], names))
    r = pv.Xdmf3ReaderT(FileName=[wp.xdmf_of(path)])
    r.UpdatePipeline(r.TimestepValues[0])
    d = sm.Fetch(r)
    got = [d.GetMetaData(i).Get(d.NAME()) for i in range(d.GetNumberOfBlocks())]
    if got != names:
        fail("Xdmf3ReaderT block names %s, expected %s" % (got, names))
    ok("blocks named %s" % ", ".join(names))


def check_result(path, names):
    reader, objects, times, ps = check_common(path)
    check_names(path, names)
    F, N, _ = shape(path, "/frames/positions")
    vel = h5(path, "/frames/velocities", (F - 1, 0, 0), (1, N, 3))
    T = shape(path, "/frames/strain_ratio")[1]
    ratio = h5(path, "/frames/strain_ratio", (F - 1, 0), (1, T))
    iters = h5(path, "/frames/stats/newton_iters")[-1]
    first_v = first_t = 0
    for i, (name, kind) in enumerate(objects):
        d = ps[i]
        v = d.GetPointData().GetArray("velocity")
        n, m = d.GetNumberOfPoints(), d.GetNumberOfCells()
        if v is None or [c for p in range(n) for c in v.GetTuple3(p)] != vel[3 * first_v: 3 * (first_v + n)]:
            fail("%s: point array velocity differs from /frames/velocities" % name)
        s = d.GetCellData().GetArray("strain_ratio")
        if s is None or [s.GetTuple1(c) for c in range(m)] != ratio[first_t: first_t + m]:
            fail("%s: cell array strain_ratio differs from /frames/strain_ratio" % name)
        f = d.GetFieldData().GetArray("newton_iters")
        if i == 0 and (f is None or f.GetTuple1(0) != iters):  # on the first deformable object
            fail("%s: field newton_iters is not the last frame's %r" % (name, iters))
        first_v += n
        first_t += m
    ok("velocity, strain_ratio and the per-frame figures equal the file's last frame")
    # Hiding an object under the default reader: threshold its object_id away.
    keep = [i for i, (_, kind) in enumerate(objects) if kind != "obstacle"]
    t = pv.Threshold(Input=reader)
    t.Scalars = ["CELLS", "object_id"]  # before the range: choosing the array resets it
    t.LowerThreshold, t.UpperThreshold = min(keep), max(keep)
    t.UpdatePipeline(times[-1])
    n = t.GetDataInformation().GetNumberOfPoints()
    want = sum(ps[i].GetNumberOfPoints() for i in keep)
    if n != want:
        fail("threshold on object_id keeps %d points, the deformable objects have %d" % (n, want))
    ok("threshold on object_id shows the deformable objects alone (%d points)" % n)
    cloth = ps[0].GetCellData().GetArray("strain_ratio").GetRange()
    ok("cloth strain_ratio in [%.4f, %.4f]" % cloth)


def check_sample(path):
    # VTK cell types: 1 vertex, 3 line, 5 triangle, 10 tetra (poly-vertex 2, poly-line 4).
    types = [[1, 2], [3, 4], [5], [10], [3, 4, 5]]
    reader, objects, times, ps = check_common(path, cell_types=None)
    for i, (name, _) in enumerate(objects):
        got = sorted({ps[i].GetCellType(c) for c in range(ps[i].GetNumberOfCells())})
        if not set(got) <= set(types[i]) or not got:
            fail("%s: VTK cell types %s, expected among %s" % (name, got, types[i]))
    ok("points, polylines, triangles, tets and a mixed object all show: %s" %
       ", ".join("%s %d cells" % (o[0], p.GetNumberOfCells()) for o, p in zip(objects, ps)))
    check_names(path, ["grains", "noodle", "sheet", "jelly", "mixed"])


def check_codim(path, expected):
    """A scene of rods and particles beside surfaces: each object's cell count and VTK cell
    types (lines for rods, vertices for particles, triangles for surfaces) as expected;
    `expected` is NAME:CELLS:TYPE,... with TYPE one of line, vertex, triangle, tet."""
    types = {"vertex": {1, 2}, "line": {3, 4}, "triangle": {5}, "tet": {10}}
    reader, objects, times, ps = check_common(path)
    want = [e.split(":") for e in expected]
    if [o[0] for o in objects] != [w[0] for w in want]:
        fail("objects %s, expected %s" % ([o[0] for o in objects], [w[0] for w in want]))
    for (name, cells, kind), p in zip(want, ps):
        got = {p.GetCellType(c) for c in range(p.GetNumberOfCells())}
        if p.GetNumberOfCells() != int(cells) or not got <= types[kind]:
            fail("%s: %d cells of VTK types %s, expected %s %s cells" % (name, p.GetNumberOfCells(), sorted(got), cells, kind))
    ok("every object shows its cells: " + ", ".join(expected))


def check_torn(path):
    """A torn cloth (PBD tearing): at the first and last frame its piece has every point of
    the frame (N, the spares included) and its cells are exactly that frame's rows of
    /frames/triangles; the connectivity differs between them, as does the number of points
    the cells use (the spares join in)."""
    reader, objects, times = wp.open_result(path)
    F, T, _ = shape(path, "/frames/triangles")
    _, N, _ = shape(path, "/frames/positions")
    used = []
    conn = []
    for f in (0, F - 1):
        ps = wp.pieces(reader, times[f])
        d = ps[0]
        want = [int(v) for v in h5(path, "/frames/triangles", (f, 0, 0), (1, T, 3))]
        if d.GetNumberOfPoints() != N or d.GetNumberOfCells() != T:
            fail("frame %d: %d points, %d cells; expected %d, %d" % (f, d.GetNumberOfPoints(), d.GetNumberOfCells(), N, T))
        got = []
        for c in range(T):
            ids = d.GetCell(c).GetPointIds()
            got += [ids.GetId(k) for k in range(ids.GetNumberOfIds())]
        if got != want:
            bad = next(k for k in range(len(got)) if got[k] != want[k])
            fail("frame %d: cell %d corner %d is %d, /frames/triangles has %d" % (f, bad // 3, bad % 3, got[bad], want[bad]))
        pos = h5(path, "/frames/positions", (f, 0, 0), (1, N, 3))
        pts = [c for p in range(N) for c in d.GetPoint(p)]
        if pts != pos:
            fail("frame %d: point coordinates differ from /frames/positions" % f)
        used.append(len(set(want)))
        conn.append(got)
        ok("frame %d: %d points, %d triangles equal to /frames/triangles (%d points used)" % (f, N, T, len(set(want))))
    if conn[0] == conn[1] or used[1] <= used[0]:
        fail("the topology does not change between the first and the last frame")
    ok("the topology changes: %d -> %d points used" % (used[0], used[1]))


if __name__ == "__main__":
    if sys.argv[1] == "torn":
        check_torn(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "result":
        check_result(sys.argv[2], sys.argv[3].split(","))
    elif sys.argv[1] == "codim":
        check_codim(sys.argv[2], sys.argv[3].split(","))
    elif sys.argv[1] == "sample":
        check_sample(sys.argv[2])
    else:
        fail("unknown mode " + sys.argv[1])
