"""weft results in ParaView (pvpython): open a result, know its objects, frame a camera,
render PNG frames. Used by weft-render and by the tests that open results in ParaView.

A result is OUT.h5 with OUT.xdmf beside it (src/io/xdmf.hpp). ParaView's default reader
for .xdmf (Xdmf3ReaderS) turns the per-object blocks into pieces in case order and drops
their names, so the object names and kinds are read here from the .xdmf itself; each
piece's cells carry the object's index as the cell array object_id.
"""
import math
import os
import xml.etree.ElementTree as ET

from paraview import servermanager as sm
from paraview import simple as pv


class ResultError(Exception):
    """A result that cannot be opened: missing files, not a weft result."""


def xdmf_of(path):
    """OUT.xdmf for OUT.h5 or OUT.xdmf; ResultError when it is not there."""
    base, ext = os.path.splitext(path)
    xdmf = path if ext == ".xdmf" else base + ".xdmf"
    if not os.path.isfile(path):
        raise ResultError("%s: no such file" % path)
    if not os.path.isfile(xdmf):
        raise ResultError("%s: no %s beside it (a run that did not finish writes none)" % (path, os.path.basename(xdmf)))
    # Xdmf3 resolves OUT.h5 against the folder of OUT.xdmf, and a bare file name has none.
    return os.path.abspath(xdmf)


def objects_of(xdmf):
    """[(name, kind)] of the result's objects in case order (= piece order)."""
    try:
        root = ET.parse(xdmf).getroot()
    except (ET.ParseError, OSError) as e:
        raise ResultError("%s: not readable XDMF (%s)" % (xdmf, e))
    step = root.find("./Domain/Grid/Grid")
    if step is None:
        raise ResultError("%s: holds no frame" % xdmf)
    out = []
    for g in step.findall("Grid"):
        info = g.find("Information[@Name='kind']")
        out.append((g.get("Name"), info.get("Value") if info is not None else ""))
    return out


def open_result(path):
    """(reader, objects, times): the reader ParaView picks by default for OUT.xdmf."""
    xdmf = xdmf_of(path)
    reader = pv.OpenDataFile(xdmf)
    if reader is None:
        raise ResultError("%s: ParaView has no reader for it" % xdmf)
    return reader, objects_of(xdmf), list(reader.TimestepValues)


def pieces(reader, time):
    """The datasets of every object at `time`, in case order."""
    reader.UpdatePipeline(time)
    data = sm.Fetch(reader)
    out = []
    it = data.NewIterator()
    it.SkipEmptyNodesOff()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        out.append(it.GetCurrentDataObject())
        it.GoToNextItem()
    return out


def union_bounds(boxes):
    """The box around (xmin, xmax, ymin, ymax, zmin, zmax) boxes; None for none."""
    b = [math.inf, -math.inf] * 3
    for o in boxes:
        for a in range(3):
            b[2 * a] = min(b[2 * a], o[2 * a])
            b[2 * a + 1] = max(b[2 * a + 1], o[2 * a + 1])
    return b if b[0] <= b[1] else None


def frame_camera(view, bounds, view_angle=30.0, direction=(0.55, 0.45, 1.0)):
    """Look at the box from the front, a little above and to the right, close enough that
    its bounding sphere fills the view (gravity is -y, so y stays up)."""
    c = [(bounds[2 * a] + bounds[2 * a + 1]) / 2 for a in range(3)]
    r = 0.5 * math.sqrt(sum((bounds[2 * a + 1] - bounds[2 * a]) ** 2 for a in range(3))) or 1.0
    n = math.sqrt(sum(d * d for d in direction))
    dist = 1.1 * r / math.sin(math.radians(view_angle) / 2)
    view.CameraFocalPoint = c
    view.CameraPosition = [c[a] + dist * direction[a] / n for a in range(3)]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraViewAngle = view_angle
    view.CenterOfRotation = c


# Deformable objects in clear colours, obstacles in greys (RGB triples).
DEFORMABLE_COLOURS = [(0.85, 0.33, 0.20), (0.20, 0.47, 0.75), (0.30, 0.65, 0.35), (0.80, 0.60, 0.15), (0.55, 0.35, 0.70)]
OBSTACLE_COLOURS = [(0.80, 0.80, 0.78), (0.62, 0.62, 0.60), (0.70, 0.70, 0.68)]


def colour_by_object(display, objects):
    """One colour per object (the cell array object_id): deformable ones in clear colours,
    obstacles in greys."""
    pv.ColorBy(display, ("CELLS", "object_id"))
    lut = pv.GetColorTransferFunction("object_id")
    lut.InterpretValuesAsCategories = 1
    annotations, colours = [], []
    nd = no = 0
    for i, (name, kind) in enumerate(objects):
        annotations += [str(i), name]
        if kind == "obstacle":
            colours += OBSTACLE_COLOURS[no % len(OBSTACLE_COLOURS)]
            no += 1
        else:
            colours += DEFORMABLE_COLOURS[nd % len(DEFORMABLE_COLOURS)]
            nd += 1
    lut.Annotations = annotations
    lut.IndexedColors = colours


def render_frames(path, out_dir, frames=slice(None), size=(1280, 720)):
    """PNG per selected frame into out_dir; returns [(file, time)] of the frames written."""
    reader, objects, times = open_result(path)
    if not times:
        raise ResultError("%s: holds no time step" % path)
    chosen = list(range(len(times)))[frames]
    if not chosen:
        raise ResultError("%s: --frames selects none of its %d frames" % (path, len(times)))
    os.makedirs(out_dir, exist_ok=True)
    # Frame the deformable objects over the first and last chosen frames (obstacles such as
    # the ground would otherwise shrink the cloth to a few pixels).
    deformable = [i for i, (_, kind) in enumerate(objects) if kind != "obstacle"] or list(range(len(objects)))
    boxes = []
    for f in {chosen[0], chosen[-1]}:
        ps = pieces(reader, times[f])
        boxes += [ps[i].GetBounds() for i in deformable if i < len(ps) and ps[i] and ps[i].GetNumberOfPoints()]
    bounds = union_bounds(boxes)

    view = pv.CreateView("RenderView")
    view.ViewSize = list(size)
    view.OrientationAxesVisibility = 0
    view.Background = [1.0, 1.0, 1.0]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    # Smooth shading (point normals; creases sharper than 60 degrees stay sharp), rods as
    # tubes and particles as spheres.
    surface = pv.GenerateSurfaceNormals(Input=pv.ExtractSurface(Input=reader))
    surface.FeatureAngle = 60.0
    display = pv.Show(surface, view)
    colour_by_object(display, objects)
    display.SetScalarBarVisibility(view, False)
    display.Specular = 0.2
    display.RenderLinesAsTubes = 1
    display.LineWidth = 3.0
    display.RenderPointsAsSpheres = 1
    display.PointSize = 6.0
    pv.Render(view)  # the first render resets the camera: frame it after
    if bounds:
        frame_camera(view, bounds)
    title = os.path.splitext(os.path.basename(path))[0]
    written = []
    for f in chosen:
        view.ViewTime = times[f]
        png = os.path.join(out_dir, "%s_%04d.png" % (title, f))
        pv.SaveScreenshot(png, view, ImageResolution=list(size))
        written.append((png, times[f]))
    # Release the render window while the X connection is still there: torn down at exit
    # it ends the process with a GLXBadContext error under Xvfb.
    pv.Delete(view)
    return written
