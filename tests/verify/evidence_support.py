"""Checks that a result's summary and points keep the facts of its evidence (shared by the ledger's tests)."""

from __future__ import annotations

import math
import re

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?%?")


def _value_and_tolerance(tok: str) -> tuple[float, float]:
    """A printed number (``0.123``, ``1.2e+03``, ``18%``) and half a unit of its last printed digit."""
    percent = tok.endswith("%")
    mantissa, _, exp = tok.rstrip("%").partition("e")
    scale = (10.0 ** int(exp) if exp else 1.0) / (100.0 if percent else 1.0)
    decimals = len(mantissa.partition(".")[2])
    return float(mantissa) * scale, 0.5 * 10.0 ** -decimals * scale * (1 + 1e-9)


def lost_numbers(evidence: str, summary: str, points, decisions=()) -> list[str]:
    """The numbers written in ``evidence`` that neither ``summary``, any cell of ``points`` nor the control of one
    of ``decisions`` (its level, family, holds level and margin: the reports print them under Decisions) carries.

    A number printed to d digits is carried by a value that rounds to it (the points keep full precision); a
    percentage ``18%`` is the fraction 0.18.
    """
    shown = " ".join([summary] + [d.control.family for d in decisions])
    have = [_value_and_tolerance(x)[0] for x in _NUMBER.findall(shown)]
    have += [float(v) for d in decisions for v in (d.control.alpha, d.control.holds_level, d.control.margin)
             if v is not None]
    have += [float(v) for p in points for v in p.values()
             if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    have += [_value_and_tolerance(x)[0] for p in points for v in p.values() if isinstance(v, str)
             for x in _NUMBER.findall(v)]
    lost = []
    for tok in _NUMBER.findall(evidence):
        x, tol = _value_and_tolerance(tok)
        if not any(abs(y - x) <= tol for y in have):
            lost.append(tok)
    return lost
