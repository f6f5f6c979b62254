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


def test_every_declared_theory_entry_is_a_resolvable_function():
    import importlib

    for c in registry.select():
        for path in c.theory:
            module, _, name = path.rpartition(".")
            assert callable(getattr(importlib.import_module(module), name)), (c.id, path)


def test_theory_is_declared_as_functions_and_stored_as_paths():
    import theory.pagan as tp

    cid = "fixture.theory_fn"
    registry.claim(cid, kind="exact", statement="s", theory=(tp.noise_multiplier,),
                   weaker_if={tp.noise_multiplier: "larger"})(lambda budget, seed: None)
    try:
        c = registry.REGISTRY[cid]
        assert c.theory == ("theory.pagan.noise_multiplier",)
        assert dict(c.weaker_if) == {"theory.pagan.noise_multiplier": "larger"}
    finally:
        registry.REGISTRY.pop(cid, None)
    for bad in ("theory.pagan.no_such_function", "no_module_at_all.f", lambda: 1, 3):
        with pytest.raises(ValueError, match="theory"):
            registry.claim("fixture.theory_bad", kind="exact", statement="s", theory=(bad,))
    assert "fixture.theory_bad" not in registry.REGISTRY


def _uncalled_theory(cid: str) -> list[str]:
    (c,) = registry.select([cid])
    mutants.reset_caches()  # a memo filled by an earlier check would hide this check's calls
    with using(SerialRunner()), mutants.tracing_theory(c) as (calls, _):
        c.check("quick", 0)
    return [p for p, k in calls.items() if k == 0]


# two cheap claims per paper whose checks evaluate every function they declare
EVALUATED = ["pagan.eq7", "pagan.example1", "noisy_adagrad.theorem5.1", "noisy_adagrad.lemma13",
             "dp_adam_design.section3.4.1", "dp_adam_design.eq2", "adadps.theorem2", "adadps.theorem3",
             "adp.remark4.1", "adp.remark4.1.alternative"]


@pytest.mark.parametrize("cid", EVALUATED)
def test_the_check_evaluates_every_function_it_declares(cid):
    assert _uncalled_theory(cid) == []


@pytest.mark.slow
def test_every_check_evaluates_every_function_it_declares_or_the_report_says_so():
    """The whole ledger at quick: a declared function the check never calls is reported by `dpverify mutants` as
    the surviving pseudo-mutant 'declared theory never evaluated'; this lists them all."""
    uncalled = {c.id: _uncalled_theory(c.id) for c in registry.select() if c.theory}
    assert not {k: v for k, v in uncalled.items() if v}, uncalled
