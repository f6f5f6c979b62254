"""Helpers shared by the tests of :mod:`verify.papers.noisy_adagrad`: a claim's quick check at seed 0, and its
verdict under one of its declared mutants (serially, the memos cleared first, as ``dpverify mutants`` runs it)."""

from verify import mutants, registry
from verify.runner import SerialRunner, using


def check_quick(cid: str):
    """The outcome of ``cid``'s check at the quick budget, seed 0."""
    registry.load_all()
    return registry.REGISTRY[cid].check("quick", 0)


def mutant_verdict(cid: str, name: str) -> str:
    """The quick verdict of ``cid`` (seed 0) under its declared mutant ``name``."""
    registry.load_all()
    (c,) = registry.select([cid])
    (m,) = [m for m in c.mutants if m.name == name]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        return str(c.check("quick", 0).verdict)
