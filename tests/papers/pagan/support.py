"""Helpers shared by the tests of :mod:`verify.papers.pagan`: a claim by id, a generic theory mutant of it, and a
check run under a mutant with the memos cleared (as ``dpverify mutants`` runs it)."""

from verify import mutants, registry


def claim_by_id(cid):
    """The registered claim ``cid`` (the ledger loaded first)."""
    registry.load_all()
    return registry.REGISTRY[cid]


def generic_mutant(cid, name):
    """The generic theory mutant ``name`` of ``cid``, built exactly as verify.mutants builds it."""
    (m,) = [m for m in mutants.theory_mutants(claim_by_id(cid)) if m.name == name]
    return m


def run_under(c, m, seed=0):
    """``c``'s quick check under the mutant ``m``, with the memos cleared before and after."""
    mutants.reset_caches()
    try:
        with m.apply():
            return c.check("quick", seed)
    finally:
        mutants.reset_caches()
