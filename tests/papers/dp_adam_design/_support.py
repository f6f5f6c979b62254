"""Helpers shared by the tests of :mod:`verify.papers.dp_adam_design`: deliberately wrong closed forms."""

from theory import dp_adam_design as td
from verify import mutants


def theory_mutant(path: str, name: str):
    """The generic theory mutant ``name`` (x10, x0.1, pow1.25, pow0.75) of ``theory.dp_adam_design.<path>``."""
    fn = {n: f for n, _, f, _ in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(f"theory.dp_adam_design.{path}", name, name, fn)


def scaled(monkeypatch, name: str, factor: float):
    """Replace ``td.<name>`` by ``factor`` times itself (a deliberately wrong closed form or formula)."""
    orig = getattr(td, name)
    monkeypatch.setattr(td, name, lambda *a, **k: orig(*a, **k) * factor)


def assert_decided_finding(out, part: str = ""):
    """``out`` is violated and carries the finding of its decided parts (``decided_finding``): in the regime (no
    edge named), at least one failing part among those explored, the paper's setting not evaluated, no repair and
    the reason why; ``part`` (when given) names a failing part that the region's sentence must show.

    Returns
    -------
    verify.findings.Finding
    """
    assert out.verdict == "violated"
    f = out.finding
    assert f is not None and f.scope == "in_regime" and f.region.edge == ""
    assert 1 <= f.region.failing <= f.region.explored
    assert f.repair is None and f.no_repair_reason
    assert part in f.region.text, f.region.text
    return f
