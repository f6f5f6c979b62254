"""Claims of ``dp_adam_design`` — Ganesh, McMahan, Thakurta, *On Design Principles for Private Adaptive
Optimizers* (2025).

Each claim is one decorated ``check(budget, seed) -> Outcome``; the closed forms are in
:mod:`theory.dp_adam_design` (derived there in SymPy: the paper's formulas were lost in extraction),
the algorithms in :mod:`kernels.dp_adam` and the problems in :mod:`kernels.dp_adam_problems`.
Monte-Carlo work goes through :func:`verify.runner.sweep` with module-level task functions whose
keyword arguments carry their seed.

The pack is arranged as the paper is; importing it registers every claim:

======================  ==========================================================================================
module                  covers
======================  ==========================================================================================
``survey``              §3, the variants: post-processing's bias of v (§3.1, App. A), independent moment
                        estimation's sensitivity and noise split, zero-out vs replace-one (§3.2), noising the
                        update (§3.4.1)
``geometry``            §4.1 the quadratic example's floor, §4.3.1 / App. B scale-then-privatize's steady state
                        and contraction, §4.3.2 its proportional geometry, §4.5 the anisotropy of the per-update
                        noise
``negative_estimates``  §4.4: eq. (2) / eq. (3)'s dimension thresholds for negative v̂ (§4.4.1), DP-MF prefix sums
                        (§4.4.1, App. C), IME's missing self-regularisation (§4.4.2)
``experiments``         §5.1 sparse logistic regression (the ordering and the "IME for free" row), §5.2's Figure 4
``own_setting``         :func:`negative_fraction`: the thresholds and negative fractions in a user's own setting
``audits``              the privacy audits of the paper's kernels (``dp_adam_design.audit.*``)
``_common``             the decision helpers and thresholds several modules share
======================  ==========================================================================================

A mutant or a test that substitutes one of the pack's functions names the module that calls it (e.g.
``verify.papers.dp_adam_design.negative_estimates.ime_negative_probability``); the names re-exported here are for
reading and calling only.
"""

from verify.papers.dp_adam_design import audits, experiments, geometry, negative_estimates, own_setting, survey
from verify.papers.dp_adam_design.audits import audit_dp_adam
from verify.papers.dp_adam_design.experiments import (
    S51_METHODS,
    S51_PROBE_RTOL,
    _s51_noise_probe,
    _s51_step_probe,
    s51_calibration,
)
from verify.papers.dp_adam_design.geometry import _stp_at_setting, section4_3_1
from verify.papers.dp_adam_design.negative_estimates import _at_unit_tau, ime_negative_probability
from verify.papers.dp_adam_design.own_setting import negative_fraction
from verify.papers.dp_adam_design.survey import dpmf_bias_closed_form

# the names other parts of the suite read or call as ``verify.papers.dp_adam_design.<name>`` (the user-facing
# functions, and the checks and helpers that tests outside tests/papers/dp_adam_design call)
__all__ = ["S51_METHODS", "S51_PROBE_RTOL", "_at_unit_tau", "_s51_noise_probe", "_s51_step_probe", "_stp_at_setting",
           "audit_dp_adam", "audits", "dpmf_bias_closed_form", "experiments", "geometry", "ime_negative_probability",
           "negative_estimates", "negative_fraction", "own_setting", "s51_calibration", "section4_3_1", "survey"]
