"""Every claim module's ``Outcome`` that can say ``violated`` hands a finding with it (``finding=``).

A static audit of the claim modules (``verify/papers/**``): an ``Outcome(...)`` whose ``verdict`` is not the literal
"holds" or "inconclusive" must pass ``finding=``.  The sites known to lack one are listed by module and enclosing
function in :data:`KNOWN_WITHOUT_FINDING` (now empty); the test fails both on a new site without a finding and on a
listed site that has gained one (the list only shrinks).  A ``finding=`` expression that is None on a violated branch
is not visible statically: the tests of each paper run such branches and assert their finding.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (module path, enclosing function) of the Outcome constructions that can say violated without a finding: none
#: left (a new one fails the audit; a check that cannot give a finding must say why in its own finding instead)
KNOWN_WITHOUT_FINDING: set = set()


def _sites_without_finding(root: Path = ROOT) -> set:
    out = set()
    for path in sorted((root / "verify" / "papers").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Outcome"):
                    continue
                kw = {k.arg: k.value for k in node.keywords}
                v = kw.get("verdict")
                if isinstance(v, ast.Constant) and v.value in ("holds", "inconclusive"):
                    continue
                if "finding" not in kw:
                    out.add((rel, fn.name))
    return out


def test_every_outcome_that_can_be_violated_in_a_claim_module_passes_a_finding():
    missing = _sites_without_finding()
    new = sorted(missing - KNOWN_WITHOUT_FINDING)
    assert not new, f"Outcome(...) that can say violated without finding= in: {new}"


def test_the_list_of_sites_without_a_finding_only_shrinks():
    gone = sorted(KNOWN_WITHOUT_FINDING - _sites_without_finding())
    assert not gone, f"these sites now pass a finding: remove them from KNOWN_WITHOUT_FINDING: {gone}"


def test_the_audit_sees_a_violated_outcome_without_a_finding(tmp_path):
    """The audit can fail: a claim module with a bare violated Outcome is reported, a holding one is not."""
    pkg = tmp_path / "verify" / "papers" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "claims.py").write_text("def check(budget, seed):\n"
                                   "    return Outcome(verdict='violated', evidence='e')\n"
                                   "def fine(budget, seed):\n"
                                   "    return Outcome(verdict='holds', evidence='e')\n"
                                   "def found(budget, seed, f):\n"
                                   "    return Outcome(verdict=v, evidence='e', finding=f)\n", encoding="utf-8")
    assert _sites_without_finding(tmp_path) == {("verify/papers/toy/claims.py", "check")}
