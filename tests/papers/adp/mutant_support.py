"""Helpers for adp's mutation tests: a theory mutant as verify.mutants builds it, and a declared equivalence."""

from verify import mutants
from verify.mutants import EQUIVALENT
from verify.registry import load_all


def theory_mutation(path: str, name: str) -> mutants.Mutant:
    """The generic theory mutant ``name`` (one of verify.mutants.THEORY_MUTATIONS) of the closed form at ``path``."""
    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(path, name, "", fn)


def declared_still_false(cid: str, mutant: str) -> str:
    """The declared reason why ``mutant`` of claim ``cid`` is equivalent, which must say the statement stays false."""
    load_all()
    reason = EQUIVALENT[(cid, mutant)]
    assert reason.startswith("the mutated statement is still false")
    return reason
