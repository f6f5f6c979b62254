"""The ``noisy_adagrad`` package (:mod:`verify.papers.noisy_adagrad`) registers every claim of the paper, the
audits included."""

from verify.registry import load_all


def test_all_claims_are_registered_with_figures():
    reg = load_all()
    ids = {c for c in reg if c.startswith("noisy_adagrad.")}
    assert ids == {f"noisy_adagrad.{x}" for x in ("lemma16", "lemma13", "lemma12", "lemma5", "theorem10", "theorem5.1",
                                                   "theorem3.1", "theorem3.1.o_form", "corollary3.algorithm1",
                                                   "remark4", "remark4.algorithm1", "corollary6", "theorem3.1.gamma",
                                                   "corollary6.k",
                                                   "corollary6.proof_k", "section4.1.sigma", "lemma14",
                                                   "theorem15",
                                                   "audit.dp_gd", "audit.noisy_adagrad", "audit.dp_gd_replace_one",
                                                   "audit.noisy_adagrad_replace_one", "audit.noisy_adagrad_composed")}
