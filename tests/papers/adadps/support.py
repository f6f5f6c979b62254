"""Helpers shared by the tests of :mod:`verify.papers.adadps`: a claim's record, the verdicts its declared mutants
get, a generic theory mutant active in a block, and the claims' quick outcomes computed once per test session."""

import contextlib

from verify import mutants, registry
from verify.papers import adadps


def claim_record(cid: str):
    """The registered claim ``cid`` (every built-in claim loaded)."""
    registry.load_all()
    return registry.REGISTRY[cid]


def mutant_verdicts(cid: str, names) -> dict:
    """The quick verdict (seed 0) of each declared mutant of claim ``cid`` named in ``names``."""
    return {r.mutant: r.verdict for r in mutants.run([claim_record(cid)], "quick", 0) if r.mutant in names}


@contextlib.contextmanager
def theory_mutant(module: str, path: str, name: str):
    """The generic theory mutant ``name`` of ``theory.<module>.<path>`` active in the block, with the memos cleared
    on entry and exit (as ``dpverify mutants`` does: lru-cached closed forms derived from it must not leak)."""
    fn = {n: f for n, _, f, _ in mutants.THEORY_MUTATIONS}[name]
    mutants.reset_caches()
    try:
        with mutants.theory_mutant(f"theory.{module}.{path}", name, name, fn).apply():
            yield
    finally:
        mutants.reset_caches()


def has_figure(out) -> bool:
    """Whether an outcome draws at least one figure, each with at least one panel."""
    return len(out.plots) >= 1 and all(len(f.panels) >= 1 for f in out.plots)


class QuickOutcomes(dict):
    """Claim check name (a public function of :mod:`verify.papers.adadps`) -> its outcome at the quick budget,
    seed 0, computed on first use."""

    def __missing__(self, name: str):
        self[name] = out = getattr(adadps, name)("quick", 0)
        return out
