"""`spore-viz` / `python -m spore_viz`: graph, tensor and training views from files.

    spore-viz graph 00_Net_after.json -o net.html     # interactive page (.svg / .png by extension)
    spore-viz graph g.json --sources ~/proj           # embed source lines from files under ~/proj only
    spore-viz payload g.json                          # the viewer's payload JSON on stdout (IDE hosts)
    spore-viz capture train.py --line 12              # run train.py until the construct at line 12 is
                                                      #   first called; its graph's payload on stdout
    spore-viz tensor weight.npy -o weight.png         # heatmap / histogram / channel grid by rank
    spore-viz curves history.json -o curves.png       # {"loss": [...], "accuracy": [...], ...}
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spore-viz", description="Views of Spore graphs, tensors and training runs.")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("graph", help="render a spore.graph/1 JSON (save_graphs output) as HTML, SVG or PNG")
    g.add_argument("file", help="graph JSON, e.g. NN_name_after.json")
    g.add_argument("-o", "--output", help="output file; .html (default), .svg or .png")
    g.add_argument("--expand", choices=["default", "all"], default=None,
                   help="open every scope ('all'), or the outline of large graphs ('default'); "
                        "HTML defaults to 'default', SVG to 'all'")
    g.add_argument("--sources", metavar="DIR",
                   help="show the source lines of files under DIR (symlinks resolved); by default only the "
                        "lines the JSON itself carries: a graph file never makes the viewer read other files")
    pl = sub.add_parser("payload", help="print the interactive viewer's payload for a graph JSON (for IDE hosts)")
    pl.add_argument("file", help="graph JSON")
    pl.add_argument("--sources", metavar="DIR", help="as for graph")
    pl.add_argument("--expand", choices=["default", "all"], default="default")
    cp = sub.add_parser("capture", help="run a program until a construct/function is first called; print "
                                        "the viewer's payload of its graph (the program's step never runs)")
    cp.add_argument("file", help="the program (run as __main__, its folder as cwd)")
    cp.add_argument("--line", type=int, required=True, help="a line inside the construct or function")
    cp.add_argument("--expand", choices=["default", "all"], default="default")
    cp.add_argument("--timeout", type=float, default=None, help="give up after this many seconds (exit code 5)")
    cp.add_argument("args", nargs="*", help="arguments for the program (after --)")
    t = sub.add_parser("tensor", help="render a .npy tensor as PNG")
    t.add_argument("file", help=".npy file")
    t.add_argument("-o", "--output", help="output .png (default: next to the input)")
    t.add_argument("--kind", choices=["auto", "heatmap", "hist", "channels"], default="auto")
    c = sub.add_parser("curves", help="render training curves from a JSON dict of lists as PNG")
    c.add_argument("file", help="JSON: {\"loss\": [...], \"val_loss\": [...], \"step\": [...]}")
    c.add_argument("-o", "--output", help="output .png (default: next to the input)")
    c.add_argument("--smooth", type=float, default=0.0, help="EMA factor in [0, 1)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.cmd == "capture":
        from .capture import run

        return run(args.file, args.line, args.expand, args.args, args.timeout)
    src = Path(args.file)
    if not src.exists():
        print(f"spore-viz: {src}: no such file", file=sys.stderr)
        return 2
    try:
        if args.cmd == "payload":
            from .html_view import view_payload

            data = view_payload(src, expand=args.expand, sources_root=args.sources)
            sys.stdout.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n")
            return 0
        out = _run(args, src)
    except (ValueError, TypeError) as err:  # bad input file: one line, not a traceback
        print(f"spore-viz: {src}: {err}", file=sys.stderr)
        return 1
    print(out)
    return 0


def _run(args: argparse.Namespace, src: Path) -> Path:
    if args.cmd == "graph":
        out = Path(args.output) if args.output else src.with_suffix(".html")
        ext = out.suffix.lower()
        if ext == ".svg":
            from .svg_view import render_svg
            render_svg(src, out, expand=args.expand or "all")
        elif ext == ".png":
            from .png_view import render_png
            render_png(src, out, expand=args.expand or "auto")
        else:
            from .html_view import render_html
            render_html(src, out, expand=args.expand or "default", sources_root=args.sources)
        return out
    from . import plots

    out = Path(args.output) if args.output else src.with_suffix(".png")
    if args.cmd == "tensor":
        import numpy as np

        a = np.load(src, allow_pickle=False)
        view = {"auto": plots.tensor_view, "heatmap": plots.tensor_heatmap, "hist": plots.histogram,
                "channels": plots.channel_grid}[args.kind]
        view(a, title=src.name, save=out)
    else:
        plots.training_curves(json.loads(src.read_text("utf-8")), smooth=args.smooth, title=src.stem, save=out)
    return out
