"""verify.papers.adp._common: the matched accountant σ that puts ADP-SGD and DP-SGD at the same ε."""


import numpy as np

from theory import adp as tadp
from verify.papers.adp import _common as common
from verify.privacy import composed_epsilon


def test_matched_sigma_gives_both_methods_the_same_accountant_epsilon():
    T, n = 1000, 20000
    b = tadp.polynomial_schedule(T, 1.0, 1.0)
    eps = []
    for alpha in (np.ones(T), np.sqrt(b)):
        s = common.matched_sigma(alpha, n, 1.0, 1e-5)
        eps.append(composed_epsilon(common._schedule_phases(alpha, s, n), 1e-5, "rdp"))
        assert composed_epsilon(common._schedule_phases(alpha, s / 1.01, n), 1e-5, "rdp") > 1.0  # the smallest σ
    assert eps[0] <= 1.0 and eps[1] <= 1.0 and abs(eps[0] - eps[1]) < 0.02
