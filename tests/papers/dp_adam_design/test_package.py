"""verify.papers.dp_adam_design as a whole: importing it registers every claim of the paper, and the paper's
benchmark is registered beside the others."""

from verify.bench import BENCHMARKS
from verify.registry import REGISTRY, load_all


def test_the_zero_out_floor_geometry_self_regularisation_and_ime_for_free_claims_register():
    load_all()
    for cid in ("section3.2.zero_out_vs_replace", "section4.1", "section4.3.2", "section4.4.2",
                "section5.1.ime_for_free"):
        assert "dp_adam_design." + cid in REGISTRY


def test_claims_register_with_ids_and_figures():
    load_all()
    ids = {c for c in REGISTRY if c.startswith("dp_adam_design.")}
    assert ids == {"dp_adam_design." + x for x in ("section3.1", "section3.2.bound", "section3.2.tight_equal",
                                                   "section3.4.1", "section4.3.1", "eq2", "eq3",
                                                   "section4.4.1", "section4.5", "section5.1", "figure4",
                                                   "audit.post_processing", "audit.ime", "audit.dpmf_half",
                                                   "section3.2.zero_out_vs_replace", "section4.1",
                                                   "section4.3.2", "section4.4.2", "section5.1.ime_for_free")}


def test_dp_adam_benchmark_is_registered_next_to_the_existing_ones():
    assert {"pagan_loop", "pagan_opt_loop", "dp_adam_round_1e6"} <= set(BENCHMARKS)
