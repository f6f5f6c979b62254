"""pagan's claims with a long evidence paragraph also carry a one-sentence summary and the points it rests on: run at
quick, every number of the evidence is carried by the summary, the points or the decisions' controls, and the summary
is one short sentence.  (pagan.theorem3 and the rate claims have their own tests; the audits are checked elsewhere.)
"""

from __future__ import annotations

import re

import pytest

from tests.verify.evidence_support import lost_numbers
from verify import decide, registry

#: the claims split into summary and points here, by id
SPLIT = ["pagan.section3.2.box", "pagan.theorem1.dp_sgd", "pagan.eq7", "pagan.algorithm3.privacy",
         "pagan.algorithm3.privacy.large_eps", "pagan.example1.mu", "pagan.proposition2", "pagan.theorem5",
         "pagan.theorem4.risk.d3", "pagan.proposition1.d3", "pagan.lemma3.1", "pagan.lemma3.2", "pagan.example1",
         "pagan.theorem3.pagan", "pagan.theorem3.floor", "pagan.figure1", "pagan.section6.1"]

#: a summary longer than this is no longer a sentence to read first
SUMMARY_CHARS = 220


@pytest.fixture(scope="module")
def outcomes():
    """Each claim's outcome at quick, seed 0, run once for all the tests of this module."""
    return {}


def _outcome(outcomes, cid):
    if cid not in outcomes:
        outcomes[cid] = registry.load_all()[cid].check("quick", 0)
    return outcomes[cid]


@pytest.mark.parametrize("cid", SPLIT)
def test_summary_and_points_keep_every_number_of_the_evidence(outcomes, cid):
    out = _outcome(outcomes, cid)
    points = out.points or decide.decision_points(out.decisions)  # what the runner shows
    assert points or not out.decisions
    assert lost_numbers(out.evidence, out.summary, points, out.decisions) == []


@pytest.mark.parametrize("cid", SPLIT)
def test_summary_is_one_short_sentence(outcomes, cid):
    out = _outcome(outcomes, cid)
    assert out.summary and len(out.summary) <= SUMMARY_CHARS, (len(out.summary), out.summary)
    assert not re.search(r"[.!?]\s+[A-Z]", out.summary), out.summary  # no second sentence
    assert out.summary != out.evidence
