"""weft-render OUT.h5 [-o DIR] [--frames a:b:k] [--size WxH]

PNG frames of a weft result through ParaView (pvpython), and an MP4 when ffmpeg is
installed: a quick look at a cluster run without a desktop. Thin: parses the command line,
renders with src/io/paraview/weft_paraview.py. Started by the weft-render launcher, which
provides an X server (Xvfb) when there is no display.
"""
import builtins  # pvpython puts paraview.simple (its own min, max) into __main__
import os
import shutil
import subprocess
import sys

import weft_paraview as wp

USAGE = "usage: weft-render OUT.h5 [-o DIR] [--frames a:b:k] [--size WxH]"
HELP = """  Renders frames of a weft result file to PNGs through ParaView (pvpython; an X server is
  started when there is no display), and an MP4 of them when ffmpeg is installed.
  Exit 0 = done, 2 = bad input or an unreadable result file.
  -o DIR          where the PNGs go (default: OUT_frames beside OUT.h5)
  --frames a:b:k  the frames to render, a Python slice of frame indices (default: all;
                  one index k = that frame, -1 = the last)
  --size WxH      image size in pixels (default 1280x720)
  -h, --help      this text"""


class UsageError(Exception):
    pass


def parse_frames(text):
    parts = text.split(":")
    if len(parts) > 3:
        raise UsageError("--frames: expected a:b:k (Python slice of frame indices), got '%s'" % text)
    try:
        vals = [int(p) if p.strip() else None for p in parts]
    except ValueError:
        raise UsageError("--frames: expected integers in a:b:k, got '%s'" % text)
    if len(vals) == 1:  # one frame
        f = vals[0]
        if f is None:
            raise UsageError("--frames: expected a:b:k, got '%s'" % text)
        return slice(f, f + 1 if f != -1 else None)
    if len(vals) == 3 and vals[2] is not None and vals[2] <= 0:
        raise UsageError("--frames: the step k must be positive, got %d" % vals[2])
    return slice(*vals)


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError("--size: expected WxH in pixels, e.g. 1280x720, got '%s'" % text)
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise UsageError("--size: each side must be 16..8192 pixels, got '%s'" % text)
    return w, h


def parse(argv):
    args = {"out": None, "frames": slice(None), "size": (1280, 720), "result": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(USAGE)
            print(HELP)
            sys.exit(0)
        if a in ("-o", "--frames", "--size"):
            if i + 1 >= len(argv):
                raise UsageError("option %s needs a value" % a)
            v = argv[i + 1]
            i += 2
            if a == "-o":
                args["out"] = v
            elif a == "--frames":
                args["frames"] = parse_frames(v)
            else:
                args["size"] = parse_size(v)
            continue
        if a.startswith("-"):
            raise UsageError("unknown option '%s'" % a)
        if args["result"] is not None:
            raise UsageError("unexpected argument '%s' (one result file only)" % a)
        args["result"] = a
        i += 1
    if args["result"] is None:
        raise UsageError("no result file given")
    if args["out"] is None:
        args["out"] = os.path.splitext(args["result"])[0] + "_frames"
    return args


def make_movie(pngs, out_dir, fps):
    """OUT.mp4 from the PNGs when ffmpeg is installed; None otherwise."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg or len(pngs) < 2:
        return None
    listing = os.path.join(out_dir, "frames.txt")
    with open(listing, "w") as f:
        for p in pngs:
            f.write("file '%s'\nduration %g\n" % (os.path.abspath(p), 1.0 / fps))
    movie = os.path.splitext(pngs[0])[0].rsplit("_", 1)[0] + ".mp4"
    cmd = [ffmpeg, "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", listing,
           "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-pix_fmt", "yuv420p", "-r", "%g" % fps, movie]
    rc = subprocess.call(cmd)
    os.remove(listing)
    return movie if rc == 0 else None


def main(argv):
    try:
        a = parse(argv)
        frames = wp.render_frames(a["result"], a["out"], a["frames"], a["size"])
    except (UsageError, wp.ResultError) as e:
        sys.stderr.write("weft-render: error: %s\n%s\n" % (e, USAGE))
        return 2
    pngs = [f for f, _ in frames]
    print("weft-render: %d frame%s in %s" % (len(pngs), "" if len(pngs) == 1 else "s", a["out"]))
    # Real time where the frames allow it (1 to 60 frames a second).
    span = frames[-1][1] - frames[0][1]
    fps = builtins.min(60.0, builtins.max(1.0, (len(frames) - 1) / span)) if span > 0 else 1.0
    movie = make_movie(pngs, a["out"], fps)
    if movie:
        print("weft-render: movie %s" % movie)
    elif len(pngs) > 1 and not shutil.which("ffmpeg"):
        print("weft-render: no ffmpeg, so no movie (apt-get install ffmpeg)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
