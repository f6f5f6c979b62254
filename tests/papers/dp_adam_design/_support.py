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
