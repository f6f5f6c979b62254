"""Helpers shared by the tests of :mod:`verify.papers.noisy_adagrad`: a claim's quick check at seed 0, the quick
checks of a module's functions run once each, and a claim's verdict under one of its declared mutants (serially,
the memos cleared first, as ``dpverify mutants`` runs it)."""

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


def memoised_quick(module):
    """A function ``get(name)`` giving ``module.name("quick", 0)``, each check run once (a module fixture's body).

    Parameters
    ----------
    module : module
        A claim module of :mod:`verify.papers.noisy_adagrad`.

    Returns
    -------
    callable
        ``get(name) -> Outcome``.
    """
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = getattr(module, name)("quick", 0)
        return cache[name]

    return get
