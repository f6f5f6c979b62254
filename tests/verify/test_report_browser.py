"""The HTML report in a real browser (Debian's headless Chromium): anchors resolve, no horizontal overflow.

Skipped when no Chromium is installed (`apt-get install chromium`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from verify import plots, report
from verify.registry import Figure, Panel, Result, Series

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

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
    if (r.right > document.documentElement.clientWidth + 1 && !el.closest('pre')) wide.push(el.tagName);
  });
  var p = document.createElement('p');
  p.id = 'probe';
  p.textContent = JSON.stringify({overflow: over, missing: missing, wide: wide.slice(0, 5)});
  document.body.appendChild(p);
});
</script>"""


def _page(tmp_path: Path) -> Path:
    x = np.arange(1, 8)
    fig = Figure("sweep", "a five-panel figure", [
        Panel(f"sweep {i} with a title long enough to need wrapping", "n", "ratio",
              [Series("measured", x, x * 1.0, x * 0.9, x * 1.1, style="points"), Series("bound", x, x * 1.2)],
              xscale="log") for i in range(5)])
    plots.render(fig, tmp_path / "figures" / "f.png")
    long_evidence = "evidence " + " ".join(f"word{i}" for i in range(300))
    rs = [Result("pagan.theorem2", "violated", {"k": 1.0}, long_evidence,
                 {"points": [{"n": n, "ratio": 1.0 / n} for n in range(1, 41)]}, 0, "quick", 1.0, ["figures/f.png"]),
          Result("adp.table1", "holds", {}, "x" * 400, {"T": 3}, 0, "quick", 1.0, []),
          Result("pagan.audit.pagan", "inconclusive", {}, "no leak", None, 0, "quick", 1.0, [])]
    html = report.render_html(rs, {}, {"budget": "quick", "seed": 0}, tmp_path)
    path = tmp_path / "report.html"
    path.write_text(html.replace("</body>", _PROBE + "</body>"))
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
