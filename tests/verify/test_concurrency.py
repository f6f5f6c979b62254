"""Claims checked concurrently give the same numbers as one after another (same seed, separate caches)."""

from __future__ import annotations

import json

from verify import engine, registry
from verify.registry import jsonable

IDS = ["pagan.eq7", "pagan.example1", "adp.lemma2.2", "adp.remark4.1"]


def test_concurrent_claims_match_serial(tmp_path):
    claims = registry.select(IDS)
    serial = engine.run_claims(claims, "quick", 1, tmp_path / "a", workers=2, progress=False, claim_workers=1)
    conc = engine.run_claims(claims, "quick", 1, tmp_path / "b", workers=2, progress=False, claim_workers=4)
    assert [r.id for r in conc] == [r.id for r in serial] == [c.id for c in claims]  # ledger order kept
    for a, b in zip(serial, conc):
        assert a.verdict == b.verdict, a.id
        assert json.dumps(jsonable(a.figures), sort_keys=True) == json.dumps(jsonable(b.figures), sort_keys=True)
        assert a.evidence == b.evidence
    assert not serial.failed and not conc.failed
