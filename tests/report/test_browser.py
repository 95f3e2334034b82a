"""The HTML reports of a ResNet-18 run and of a small DSE study, opened in a real headless
browser (Debian's chromium driven by Playwright), looked at as a person would: the page loads
with no console errors, every image decoded, the title and the summary match the run, and a
full-page screenshot (kept under the pytest temp dir) is not blank."""

import shutil
from pathlib import Path

import pytest
from report_data import ATTRIBUTES, OBJECTIVES, study_frame

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "",
                             shutil.which("chromium-browser") or "") if p and Path(p).is_file()),
                None)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium browser (Debian package "
                                "'chromium'; `make test` installs it)")


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def look(browser, index: Path, shot: Path) -> tuple:
    """Open `index`; -> (page, console errors). Saves a full-page screenshot to `shot`."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(index.resolve().as_uri(), wait_until="load")
    images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, "
                           "i.naturalHeight])")
    assert images and all(ok and w > 0 and h > 0 for ok, w, h in images), images
    # self-contained: the page itself is the only thing loaded (figures are data: URIs)
    assert [u for u in requests if not u.startswith("data:")] == [index.resolve().as_uri()]
    page.screenshot(path=str(shot), full_page=True)
    return page, errors, len(images)


def not_blank(shot: Path) -> None:
    import matplotlib.image
    img = matplotlib.image.imread(shot)
    assert img.shape[0] > 1500 and img.shape[1] >= 1280  # the full page, not the viewport
    assert img[..., :3].std() > 0.05  # figures and text, not an empty white page


def summary(page) -> dict:
    return page.evaluate("Object.fromEntries(Array.from(document.querySelectorAll("
                         "'#summary [data-key]')).map(e => [e.dataset.key, [e.dataset.value, "
                         "e.textContent]]))")


def test_the_resnet18_report_in_a_browser(browser, tmp_path):
    from npusim import flow, report
    result = flow.run("resnet18", "npu-edge", resolution=32, trace=True)
    index = report.write(report.run_report(result), tmp_path / "report")
    page, errors, n_images = look(browser, index, tmp_path / "resnet18-report.png")
    assert errors == []
    assert n_images == 4  # layers, roofline, timeline, units
    assert page.title() == "npusim report: resnet18 on npu-edge"
    assert page.inner_text("h1") == page.title()
    s = summary(page)
    j = result.to_json()
    assert float(s["cycles"][0]) == j["cycles"] and s["cycles"][1] == f"{j['cycles']:,}"
    assert float(s["latency_ms"][0]) == pytest.approx(j["latency_ms"], rel=1e-12)
    assert float(s["energy_pj"][0]) == pytest.approx(j["energy_pj"], rel=1e-12)
    assert float(s["instructions"][0]) == j["instructions"]
    assert float(s["dram_bytes"][0]) == j["dram_bytes"]
    assert s["verified"][1].startswith("yes")
    # the per-layer table sorts by cycles when its header is clicked
    page.click("#table-layers th:has-text('cycles')")
    first = page.inner_text("#table-layers tbody tr:first-child td:first-child")
    assert first == min(j["layers"], key=lambda r: r["cycles"])["name"]
    not_blank(tmp_path / "resnet18-report.png")
    page.close()


def test_the_study_report_in_a_browser(browser, tmp_path):
    from npusim import report
    df = study_frame()
    index = report.write(report.study_report(df, attributes=ATTRIBUTES, objectives=OBJECTIVES,
                                             name="grid"), tmp_path / "study")
    page, errors, n_images = look(browser, index, tmp_path / "study-report.png")
    assert errors == []
    assert n_images == 4  # Pareto fronts, parallel coordinates, importance, sensitivity
    assert page.title() == "npusim report: DSE study grid"
    s = summary(page)
    assert float(s["trials"][0]) == len(df)
    assert float(s["infeasible"][0]) == int((df["status"] == "infeasible").sum())
    assert float(s["best.cycles"][0]) == df["cycles"].min()
    assert page.locator("#table-trials tbody tr").count() == len(df)
    not_blank(tmp_path / "study-report.png")
    page.close()
