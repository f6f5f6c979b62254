"""Importing :mod:`verify.papers.pagan` registers the paper's claims.
"""

from __future__ import annotations

from verify.registry import REGISTRY, load_all


def test_registry_has_the_foundation_claims():
    load_all()
    for cid in ("pagan.figure1", "pagan.lemma3.1", "pagan.theorem4", "pagan.eq7"):
        assert cid in REGISTRY, cid
        c = REGISTRY[cid]
        assert c.paper == "pagan" and c.statement and c.kind

