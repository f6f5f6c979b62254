"""The HTML report in a real browser (Debian's headless Chromium): anchors resolve, no horizontal overflow,
and a claim reached from the contents is shown under the sticky filter bar, on a desktop and a phone.

Skipped when no Chromium is installed (`apt-get install chromium`).
"""

from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from verify import plots, report
from verify.registry import Figure, Panel, Result, Series

from .browser_support import CHROMIUM, Browser

# Appended to the page under test: writes what the test needs into the DOM, which --dump-dom prints.
_PROBE = """<script>
window.addEventListener('load', function () {
  var missing = [];
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute('href').slice(1));
    if (!document.getElementById(id)) missing.push(id);
  });
  var over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  var wide = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    // a pre block and a table of points scroll sideways in their own box; nothing else may stick out
    if (r.right > document.documentElement.clientWidth + 1 && !el.closest('pre, .points-wrap')) wide.push(el.tagName);
  });
  var p = document.createElement('p');
  p.id = 'probe';
  p.textContent = JSON.stringify({overflow: over, missing: missing, wide: wide.slice(0, 5)});
  document.body.appendChild(p);
});
</script>"""


def _page(tmp_path: Path, probe: bool = True) -> Path:
    x = np.arange(1, 8)
    fig = Figure("sweep", "a five-panel figure", [
        Panel(f"sweep {i} with a title long enough to need wrapping", "n", "ratio",
              [Series("measured", x, x * 1.0, x * 0.9, x * 1.1, style="points"), Series("bound", x, x * 1.2)],
              xscale="log") for i in range(5)])
    plots.render(fig, tmp_path / "figures" / "f.png")
    long_evidence = "evidence " + " ".join(f"word{i}" for i in range(300))
    rs = [Result("pagan.theorem2", "violated", {"k": 1.0}, long_evidence,
                 {"points": [{"n": n, "ratio": 1.0 / n} for n in range(1, 41)]}, 0, "quick", 1.0, ["figures/f.png"]),
          # a table of points far wider than a phone: it scrolls in its own box, the page does not
          Result("adp.table1", "holds", {}, "x" * 400, {"T": 3}, 0, "quick", 1.0, [], summary="a wide table",
                 points=[{f"column {k}": 1234.5678 * k for k in range(30)} for _ in range(3)]),
          Result("pagan.audit.pagan", "inconclusive", {}, "no leak", None, 0, "quick", 1.0, [])]
    html = report.render_html(rs, {}, {"budget": "quick", "seed": 0}, tmp_path)
    path = tmp_path / "report.html"
    path.write_text(html.replace("</body>", _PROBE + "</body>") if probe else html)
    return path


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [1400, 700])
def test_report_in_headless_chromium(tmp_path, width):
    page = _page(tmp_path)
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},900",
                          "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r'<p id="probe">(.*?)</p>', out.stdout)
    assert m, out.stderr[-2000:]
    import html as _html
    import json

    probe = json.loads(_html.unescape(m.group(1)))
    assert probe["missing"] == [], probe
    assert probe["overflow"] <= 0 and probe["wide"] == [], probe


# Where a claim's heading is against the sticky filter bar and the viewport, in CSS pixels.
_PLACE = """function place(id) {
  var h = document.getElementById(id).querySelector('h3').getBoundingClientRect();
  var bar = document.querySelector('.filters').getBoundingClientRect();
  return {id: id, top: h.top, bottom: h.bottom, bar_top: bar.top, bar_bottom: bar.bottom,
          scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth, innerHeight: innerHeight};
}"""

# Follows every link of the contents as a reader would (a click), a frame later measures where the heading is.
_FOLLOW_CONTENTS = "(async function () {" + _PLACE + """
  var out = [];
  for (const a of document.querySelectorAll('nav.toc a[href^="#"]')) {
    a.click();
    await new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); });
    out.push(place(decodeURIComponent(a.getAttribute('href').slice(1))));
  }
  return out;
})()"""


def _assert_heading_shown(at: dict, width: int) -> None:
    assert at["innerWidth"] == width, at  # the viewport asked for (not a 500 px minimum window)
    assert at["scrollWidth"] <= at["innerWidth"], at  # the page does not scroll sideways
    assert at["bar_top"] == 0 and at["bar_bottom"] > 0, at  # the filter bar is stuck to the top
    assert at["bar_bottom"] <= at["top"] and at["bottom"] <= at["innerHeight"], at  # heading below it, in view


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


@pytest.fixture
def browser():
    b = Browser(CHROMIUM)
    yield b
    b.close()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [1400, 400])
def test_contents_links_show_the_claim_under_the_sticky_bar(tmp_path, browser, width):
    page = _page(tmp_path, probe=False)
    browser.open(page.as_uri(), width)
    placed = browser.evaluate(_FOLLOW_CONTENTS)
    assert sorted(p["id"] for p in placed) == ["adp.table1", "pagan.audit.pagan", "pagan.theorem2"]
    for at in placed:
        _assert_heading_shown(at, width)
    # a shared link: the page loaded with the claim's fragment
    browser.open(page.as_uri() + "#pagan.theorem2", width)
    at = browser.evaluate("(function () {" + _PLACE + " return place('pagan.theorem2'); })()")
    _assert_heading_shown(at, width)
    shot = browser.screenshot(tmp_path / f"claim-{width}.png")
    assert _png_size(shot) == (width, 900)
