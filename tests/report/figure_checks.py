"""What every figure test checks of a written figure: a parseable SVG and a decodable PNG."""

import io
import xml.etree.ElementTree as ET

import matplotlib.image


def valid_svg_png(fig, tmp_path, name="fig"):
    """Save `fig` with npusim.report.save; the SVG parses as <svg>, the PNG decodes to a
    non-empty, non-blank image; -> the PNG's (height, width)."""
    from npusim.report import save
    out = save(fig, tmp_path, name)
    root = ET.parse(out["svg"]).getroot()
    assert root.tag.endswith("svg")
    assert out["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = matplotlib.image.imread(io.BytesIO(out["png_bytes"]), format="png")
    assert img.shape[0] > 200 and img.shape[1] > 300
    assert img[..., :3].std() > 0.02  # something drawn, not a blank canvas
    return img.shape[:2]


def bar_counts(ax):
    """Number of bars in each BarContainer of an Axes."""
    return [len(c) for c in ax.containers]
