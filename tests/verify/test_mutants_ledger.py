"""Quick mutants of a few cheap claims per paper (the full mutation run is `dpverify mutants`, or the slow test).

Each claim's check must catch at least one of its declared-theory mutants and, where it runs a kernel, one kernel
fault; a claim whose every mutant survives could not have failed.
"""

from __future__ import annotations

import pytest

from verify import mutants, registry
from verify.runner import SerialRunner, using

CHEAP = ["pagan.example1", "noisy_adagrad.theorem5.1", "dp_adam_design.section4.3.1", "adadps.theorem3",
         "adp.remark4.1"]


@pytest.mark.parametrize("cid", CHEAP)
def test_cheap_claims_catch_their_mutants(cid):
    (c,) = registry.select([cid])
    with using(SerialRunner()):
        results = mutants.run([c], "quick", 0)
    assert results, f"{cid} has no mutant"
    by_kind: dict[str, list] = {}
    for r in results:
        by_kind.setdefault(r.kind, []).append(r)
    for kind, rs in by_kind.items():
        assert any(r.killed for r in rs), f"{cid}: every {kind} mutant survived: {[r.mutant for r in rs]}"


@pytest.mark.slow
def test_every_claim_has_a_mutant_that_it_catches():
    """The whole ledger at quick (tens of minutes): no claim lets every one of its mutants survive."""
    claims = registry.select()
    with using(SerialRunner()):
        results = mutants.run(claims, "quick", 0)
    s = mutants.summarize(results)
    assert not s.claims_all_survived, s.claims_all_survived
