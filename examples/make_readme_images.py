"""Render the README's pictures from the executed quickstart demo, with headless Chromium.

    python examples/run_quickstart.py          # first: executes the notebook into build/demo/
    python examples/make_readme_images.py      # -> docs/images/quickstart-{tensor,graph,hint}.png

Each picture is cut from the executed notebook, never staged: a tensor's display and the
compile-error hint are their notebook cells (input and outputs) exported alone with the demo's
own HTML exporter (JupyterLab's look); the graph view is the spore_viz page embedded in the
`%spore_graph` output (the iframe's srcdoc), opened with one node selected so its details panel
shows. Screenshots are trimmed to their content with Pillow and must stay under 300 KB each.
"""

from __future__ import annotations

import argparse
import copy
import html
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from PIL import Image, ImageChops

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_quickstart import OUT_DIR, ROOT, html_exporter  # noqa: E402 - the demo's own exporter

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--virtual-time-budget=3000"]
IMAGES = ROOT / "docs" / "images"
MAX_BYTES = 300_000
SRCDOC = re.compile(r'srcdoc="([^"]*)"')
FIT_ON_LOAD = ('<script>window.addEventListener("load", function () { document.getElementById("fit").click(); });'
               "</script>")


@dataclass(frozen=True)
class Picture:
    """One README picture: which demo cell, what its outputs must contain, how to shoot it."""

    name: str
    cell: str               # the cell id in examples/make_quickstart.py
    mime: str               # an output bundle of the cell must carry this type
    width: int
    height: int
    graph_page: bool = False  # shoot the spore_viz page inside the cell's iframe instead of the cell
    fragment: str = ""        # URL fragment for the graph page (spore_viz deep link)


PICTURES = [
    Picture("quickstart-tensor.png", "tensor", "application/vnd.spore.tensor+json", 900, 1200),
    Picture("quickstart-graph.png", "graph", "application/vnd.spore.graph+json", 1150, 1150, graph_page=True,
            fragment="#select=FusedDense"),
    Picture("quickstart-hint.png", "error", "application/vnd.spore.hint+json", 1180, 1600),
]


def find_cell(nb: Any, cell_id: str, mime: str) -> Any:
    cells = [c for c in nb.cells if c.get("id") == cell_id]
    if not cells:
        raise SystemExit(f"the executed notebook has no cell {cell_id!r}: rerun examples/run_quickstart.py")
    cell = cells[0]
    if not any(mime in o.get("data", {}) for o in cell.get("outputs", [])):
        raise SystemExit(f"cell {cell_id!r} has no {mime} output: the demo did not show what the picture claims")
    return cell


def cell_page(nb: Any, cell: Any, path: Path) -> None:
    """The cell alone (input and outputs) as a JupyterLab-styled page."""
    one = copy.deepcopy(nb)
    one.cells = [copy.deepcopy(cell)]
    body, _ = html_exporter().from_notebook_node(one)
    # the page's own margins only: no title block, no big bottom padding
    body = body.replace("</head>", "<style>body{padding:8px 4px !important}</style></head>", 1)
    path.write_text(body, encoding="utf-8")


def graph_page(cell: Any, path: Path) -> None:
    """The spore_viz page the %spore_graph output embeds (unescaped from the iframe's srcdoc)."""
    markup = next(o.data["text/html"] for o in cell.outputs if "text/html" in o.get("data", {}))
    found = SRCDOC.search(markup)
    if found is None:
        raise SystemExit("the %spore_graph output has no <iframe srcdoc>: is spore_viz importable in the kernel?")
    page = html.unescape(found.group(1))
    # after the deep link selected a node (centred, zoomed in), press the page's own Fit button so the
    # whole graph shows next to the node's details
    page = page.replace("</body>", f"{FIT_ON_LOAD}</body>", 1)
    path.write_text(page, encoding="utf-8")


def screenshot(url: str, out: Path, width: int, height: int) -> None:
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing (apt-get install -y chromium; `make` installs it)")
    with tempfile.TemporaryDirectory(prefix="spore-chromium-") as profile:
        proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                               f"--screenshot={out}", url], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not out.exists():
        raise SystemExit(f"chromium failed on {url}:\n{proc.stderr[-2000:]}")


def trim(path: Path, pad: int = 12) -> Image.Image:
    """Crop to the content (everything that differs from the top-left background colour), plus `pad`."""
    im = Image.open(path).convert("RGB")
    bg = Image.new("RGB", im.size, im.getpixel((0, 0)))
    box = ImageChops.difference(im, bg).convert("L").point(lambda v: 255 if v > 8 else 0).getbbox()
    if box is None:
        raise SystemExit(f"{path.name}: the screenshot is blank")
    left, top, right, bottom = box
    return im.crop((max(left - pad, 0), max(top - pad, 0), min(right + pad, im.width), min(bottom + pad, im.height)))


def trim_bottom(path: Path, pad: int = 24) -> Image.Image:
    """Cut the empty strip under a graph page's drawing (its toolbar and details panel span the full width)."""
    im = Image.open(path).convert("RGB")
    stage = im.crop((0, 0, im.width * 3 // 5, im.height))  # the drawing's side, left of the details panel
    bg = Image.new("RGB", stage.size, stage.getpixel((4, stage.height - 4)))
    box = ImageChops.difference(stage, bg).convert("L").point(lambda v: 255 if v > 8 else 0).getbbox()
    if box is None:
        raise SystemExit(f"{path.name}: the screenshot is blank")
    return im.crop((0, 0, im.width, min(box[3] + pad, im.height)))


def save_small(im: Image.Image, out: Path) -> int:
    """Save as PNG; fall back to a 256-colour palette (fine for UI screenshots) when over the budget."""
    im.save(out, optimize=True)
    if out.stat().st_size > MAX_BYTES:
        im.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, optimize=True)
    size = out.stat().st_size
    if size > MAX_BYTES:
        raise SystemExit(f"{out.name} is {size:,} bytes, over the {MAX_BYTES:,} budget")
    return size


def render(notebook: Path, out_dir: Path) -> list[Path]:
    nb = nbformat.read(notebook, as_version=4)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="spore-readme-") as tmp:
        for pic in PICTURES:
            cell = find_cell(nb, pic.cell, pic.mime)
            page = Path(tmp) / f"{pic.cell}.html"
            shot = Path(tmp) / f"{pic.cell}.png"
            if pic.graph_page:
                graph_page(cell, page)
            else:
                cell_page(nb, cell, page)
            screenshot(page.as_uri() + pic.fragment, shot, pic.width, pic.height)
            im = trim_bottom(shot) if pic.graph_page else trim(shot)
            out = out_dir / pic.name
            size = save_small(im, out)
            shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
            print(f"{shown}: {im.width}x{im.height}, {size:,} bytes")
            written.append(out)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notebook", type=Path, default=OUT_DIR / "quickstart.ipynb",
                    help="the executed demo notebook (default: build/demo/quickstart.ipynb)")
    ap.add_argument("--out", type=Path, default=IMAGES, help=f"where the pictures go (default {IMAGES})")
    args = ap.parse_args(argv)
    if not args.notebook.exists():
        print(f"{args.notebook} is missing: run examples/run_quickstart.py first", file=sys.stderr)
        return 2
    if shutil.which(CHROMIUM) is None:
        print(f"{CHROMIUM} is missing (apt-get install -y chromium)", file=sys.stderr)
        return 2
    render(args.notebook, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
