"""Findings: how wrong a violated statement is, where, and the repair that holds.

A ``violated`` verdict says a paper's statement is false; a :class:`Finding` says what a reader should take
away from that.  A check that returns ``violated`` attaches one (``Outcome(..., finding=Finding(...))``) built
from what it computed:

* :class:`Region` -- where the check evaluated the statement over its stated domain and where it failed:
  how many points it explored, how many failed, and how many of those lie in a named *edge* region (degenerate
  sizes such as d ≤ 3, the edge of a hypothesis such as nε just above its threshold, ε above a range a cited
  lemma needs), and how many points off that edge held;
* :class:`PaperSetting` -- the statement evaluated at the paper's own parameters or experiment (with the
  section or table they come from) and the size of the failure there (a ratio, a δ, a gap);
* :class:`Repair` -- the corrected statement (the missing factor restored, a hypothesis added, the exponent the
  proof gives) and its own verdict from the same run.

The *scope* is computed from these, never labelled by hand (:func:`scope_of`):

``vacuous``
    the check computed that the hypotheses force the statement's content to be trivial;
``misprint``
    the repair is the form the paper's own proof or appendix gives (``Repair.source == "paper"``) and it holds;
``in_regime``
    the statement fails at the paper's own setting, or somewhere off the named edge region;
``boundary``
    every failing point lies in the named edge region and the statement held at explored points off it.

A failure confined to a named edge with no explored point off it has no evidence for ``boundary`` and is
refused (:class:`ValueError`): explore the rest of the domain, or the failure is reported ``in_regime``
by not naming an edge.

``dpverify findings`` prints the findings of a result set as an errata sheet per paper
(:func:`errata_markdown`, :func:`errata_text`); reports open with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

SCOPES = ("in_regime", "boundary", "misprint", "vacuous")
#: the order in which findings are listed: the ones that matter most to a reader first
SCOPE_ORDER = {s: i for i, s in enumerate(SCOPES)}
REPAIR_SOURCES = ("paper", "derived")
_VERDICTS = ("holds", "violated", "inconclusive")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string (got {type(value).__name__})")
    return value


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer (got {value!r})")
    return value


@dataclass(frozen=True, kw_only=True)
class Region:
    """Where the statement was evaluated over its stated domain, and where it failed.

    Attributes
    ----------
    explored : int
        Points of the stated domain the check evaluated (grid points, seeded cases, sweep points).
    failing : int
        How many of them fail the statement.
    edge : str
        The edge region in the parameters' own terms ("d ≤ 3", "ε > 4", "nε within 2× of √d·log d"); "" when
        the check names none (then every failure counts as in the regime).
    failing_on_edge : int
        How many failing points lie in the edge region (≤ ``failing``).
    holding_off_edge : int
        How many explored points off the edge region hold the statement.
    text : str
        One sentence saying where it fails, for the errata sheet.
    """

    explored: int
    failing: int
    text: str
    edge: str = ""
    failing_on_edge: int = 0
    holding_off_edge: int = 0

    def __post_init__(self):
        _count(self.explored, "Region.explored")
        _count(self.failing, "Region.failing")
        _count(self.failing_on_edge, "Region.failing_on_edge")
        _count(self.holding_off_edge, "Region.holding_off_edge")
        _text(self.text, "Region.text")
        _text(self.edge, "Region.edge")
        if self.failing > self.explored:
            raise ValueError(f"Region.failing must be at most explored (got {self.failing} > {self.explored})")
        if self.failing_on_edge > self.failing:
            raise ValueError(f"Region.failing_on_edge must be at most failing "
                             f"(got {self.failing_on_edge} > {self.failing})")
        if self.holding_off_edge > self.explored - self.failing:
            raise ValueError("Region.holding_off_edge must be at most the explored points that hold "
                             f"(got {self.holding_off_edge} > {self.explored - self.failing})")
        if not self.edge and (self.failing_on_edge or self.holding_off_edge):
            raise ValueError("Region.failing_on_edge and holding_off_edge need a named Region.edge")

    def to_dict(self) -> dict:
        """The region as plain JSON types.

        Returns
        -------
        dict
            Every field by name.
        """
        return {"explored": self.explored, "failing": self.failing, "edge": self.edge,
                "failing_on_edge": self.failing_on_edge, "holding_off_edge": self.holding_off_edge,
                "text": self.text}

    @staticmethod
    def from_dict(d: Mapping) -> "Region":
        """The region written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With the fields of :meth:`to_dict`.

        Returns
        -------
        Region
        """
        return Region(explored=d["explored"], failing=d["failing"], edge=d.get("edge", ""),
                      failing_on_edge=d.get("failing_on_edge", 0), holding_off_edge=d.get("holding_off_edge", 0),
                      text=d["text"])


@dataclass(frozen=True, kw_only=True)
class PaperSetting:
    """The statement at the paper's own parameters or experiment, and the size of the failure there.

    Attributes
    ----------
    where : str
        The setting and where the paper states it ("§6.1: d = 100, n = 5000, ε = 1, δ = 1e-5").
    measure : str
        What ``size`` measures ("bound / attained", "δ at the promised ε", "gap in ε").
    size : float
        The size of the failure there (the measure's value; NaN when it cannot be computed there).
    fails : bool
        Whether the statement fails at that setting.
    text : str, optional
        One sentence for the errata sheet (defaults to a sentence made of the fields).
    """

    where: str
    measure: str
    size: float
    fails: bool
    text: str = ""

    def __post_init__(self):
        _text(self.where, "PaperSetting.where")
        _text(self.measure, "PaperSetting.measure")
        _text(self.text, "PaperSetting.text")
        if not isinstance(self.fails, bool):
            raise TypeError(f"PaperSetting.fails must be a bool (got {type(self.fails).__name__})")
        try:
            object.__setattr__(self, "size", float(self.size))
        except (TypeError, ValueError):
            raise TypeError(f"PaperSetting.size must be a number (got {self.size!r})") from None

    def sentence(self) -> str:
        """One sentence: the text given, else the setting, the measure and its size.

        Returns
        -------
        str
        """
        if self.text:
            return self.text
        size = "not computable there" if not math.isfinite(self.size) else f"{self.size:.4g}"
        return f"{self.where}: {self.measure} = {size} ({'fails' if self.fails else 'holds'} there)"

    def to_dict(self) -> dict:
        """The setting as plain JSON types (a non-finite size as text).

        Returns
        -------
        dict
            Every field by name.
        """
        size: Any = self.size if math.isfinite(self.size) else repr(self.size)
        return {"where": self.where, "measure": self.measure, "size": size, "fails": self.fails, "text": self.text}

    @staticmethod
    def from_dict(d: Mapping) -> "PaperSetting":
        """The setting written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With the fields of :meth:`to_dict`.

        Returns
        -------
        PaperSetting
        """
        return PaperSetting(where=d["where"], measure=d["measure"], size=float(d["size"]), fails=d["fails"],
                            text=d.get("text", ""))


@dataclass(frozen=True, kw_only=True)
class Repair:
    """The corrected statement and its own verdict, computed in the same run.

    Attributes
    ----------
    statement : str
        The repaired statement ("… holds once the factor log(1/δ) is restored").
    verdict : str
        Its verdict: "holds", "violated" or "inconclusive".
    evidence : str
        What the check computed for it.
    source : str
        "paper" when the repair is the form the paper's own proof or appendix gives, else "derived".
    """

    statement: str
    verdict: str
    evidence: str
    source: str = "derived"

    def __post_init__(self):
        _text(self.statement, "Repair.statement")
        _text(self.evidence, "Repair.evidence")
        if str(self.verdict) not in _VERDICTS:
            raise ValueError(f"Repair.verdict must be one of {', '.join(_VERDICTS)} (got {self.verdict!r})")
        object.__setattr__(self, "verdict", str(self.verdict))
        if self.source not in REPAIR_SOURCES:
            raise ValueError(f"Repair.source must be one of {', '.join(REPAIR_SOURCES)} (got {self.source!r})")

    def to_dict(self) -> dict:
        """The repair as plain JSON types.

        Returns
        -------
        dict
            Every field by name.
        """
        return {"statement": self.statement, "verdict": self.verdict, "evidence": self.evidence,
                "source": self.source}

    @staticmethod
    def from_dict(d: Mapping) -> "Repair":
        """The repair written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With the fields of :meth:`to_dict`.

        Returns
        -------
        Repair
        """
        return Repair(statement=d["statement"], verdict=d["verdict"], evidence=d["evidence"],
                      source=d.get("source", "derived"))


def scope_of(region: Region, at_paper_setting: PaperSetting, repair: Repair | None, vacuous: bool = False) -> str:
    """The scope of a violation, computed from where it failed (see the module's docstring for the rule).

    Parameters
    ----------
    region : Region
        Where the check evaluated the statement and where it failed.
    at_paper_setting : PaperSetting
        The statement at the paper's own setting.
    repair : Repair or None
        The repaired statement and its verdict.
    vacuous : bool, optional
        Whether the check computed that the hypotheses make the statement's content trivial.

    Returns
    -------
    str
        One of :data:`SCOPES`.

    Raises
    ------
    ValueError
        When nothing failed (no finding without a failure), or when every failure lies on the named edge but
        no explored point off it held (no evidence for ``boundary``).
    """
    if region.failing == 0 and not at_paper_setting.fails:
        raise ValueError("a finding needs a failure: Region.failing is 0 and the paper's setting holds")
    if vacuous:
        return "vacuous"
    if repair is not None and repair.source == "paper" and repair.verdict == "holds":
        return "misprint"
    if at_paper_setting.fails or region.failing > region.failing_on_edge:
        return "in_regime"
    if region.holding_off_edge == 0:
        raise ValueError(f"every failure lies on the edge {region.edge!r}, but no explored point off it held: "
                         "explore the rest of the stated domain before calling the failure a boundary case")
    return "boundary"


@dataclass(frozen=True, kw_only=True)
class Finding:
    """What a violated statement means for a reader: its scope, where, its size at the paper's setting, the repair.

    Build it with the computed pieces; ``scope`` is derived from them (:func:`scope_of`).

    Attributes
    ----------
    region : Region
    at_paper_setting : PaperSetting
    repair : Repair or None
        None only with ``no_repair_reason``.
    no_repair_reason : str
        Why no repair is known (required when ``repair`` is None).
    vacuous : bool
        Whether the hypotheses were computed to make the content trivial.
    reading : str
        For damaged text: the reading checked and the evidence for it ("" when the text is clear).
    scope : str
        Computed; one of :data:`SCOPES`.
    """

    region: Region
    at_paper_setting: PaperSetting
    repair: Repair | None = None
    no_repair_reason: str = ""
    vacuous: bool = False
    reading: str = ""
    scope: str = ""

    def __post_init__(self):
        if not isinstance(self.region, Region):
            raise TypeError("Finding.region must be a Region")
        if not isinstance(self.at_paper_setting, PaperSetting):
            raise TypeError("Finding.at_paper_setting must be a PaperSetting")
        if self.repair is not None and not isinstance(self.repair, Repair):
            raise TypeError("Finding.repair must be a Repair or None")
        _text(self.no_repair_reason, "Finding.no_repair_reason")
        _text(self.reading, "Finding.reading")
        if self.repair is None and not self.no_repair_reason.strip():
            raise ValueError("a Finding without a repair must say why none is known (no_repair_reason)")
        computed = scope_of(self.region, self.at_paper_setting, self.repair, self.vacuous)
        if self.scope and self.scope != computed:
            raise ValueError(f"Finding.scope is computed ({computed}); a stated scope {self.scope!r} disagrees")
        object.__setattr__(self, "scope", computed)

    def repair_sentence(self) -> str:
        """'holds once …' (the repair and its verdict), or why no repair is known.

        Returns
        -------
        str
        """
        if self.repair is None:
            return f"no repair known: {self.no_repair_reason}"
        return f"{self.repair.statement} — repair {self.repair.verdict} ({self.repair.evidence})"

    def to_dict(self) -> dict:
        """The finding as plain JSON types.

        Returns
        -------
        dict
            ``scope``, ``region``, ``at_paper_setting``, ``repair`` (or null), ``repair_verdict`` (or null),
            ``no_repair_reason``, ``vacuous``, ``reading``.
        """
        return {"scope": self.scope, "region": self.region.to_dict(),
                "at_paper_setting": self.at_paper_setting.to_dict(),
                "repair": None if self.repair is None else self.repair.to_dict(),
                "repair_verdict": None if self.repair is None else self.repair.verdict,
                "no_repair_reason": self.no_repair_reason, "vacuous": self.vacuous, "reading": self.reading}

    @staticmethod
    def from_dict(d: Mapping) -> "Finding":
        """The finding written by :meth:`to_dict` (its scope recomputed and checked against the stored one).

        Parameters
        ----------
        d : mapping
            With the fields of :meth:`to_dict`.

        Returns
        -------
        Finding
        """
        rep = d.get("repair")
        return Finding(region=Region.from_dict(d["region"]), at_paper_setting=PaperSetting.from_dict(
            d["at_paper_setting"]), repair=None if rep is None else Repair.from_dict(rep),
            no_repair_reason=d.get("no_repair_reason", ""), vacuous=bool(d.get("vacuous", False)),
            reading=d.get("reading", ""), scope=d.get("scope", ""))


def parts_finding(parts: Iterable, *, what: str, paper_where: str, paper_measure: str = "not evaluated there",
                  paper_size: float = math.nan, paper_fails: bool = False, paper_text: str = "",
                  repair: Repair | None = None, no_repair_reason: str = "") -> Finding:
    """The finding of a violated check from the parts it decided (decisions, grid points, exact comparisons).

    Each part is one explored point of the region, failing when its verdict is "violated"; no edge is named, so
    every failure is in the regime.  A check whose violated verdict rests on parts that all read otherwise (a
    combination the parts do not show) is a caller's error: at least one part must fail, or the paper's setting.

    Parameters
    ----------
    parts : iterable of (str, str)
        Each decided part: its label and its verdict ("holds", "violated" or "inconclusive"; a
        :class:`verify.decide.Verdict` is read as its text).
    what : str
        What the parts are, for the region's sentence.
    paper_where : str
        The paper's own setting and where the paper states it (or that it states no numeric instance).
    paper_measure : str, optional
        What is measured at the paper's setting (default "not evaluated there").
    paper_size : float, optional
        The failure's size there (default NaN: not computed).
    paper_fails : bool, optional
        Whether the statement fails at the paper's setting (default False).
    paper_text : str, optional
        A sentence on the paper's setting for the errata sheet (default "").
    repair : Repair or None, optional
        The repaired statement and its verdict from the same run.
    no_repair_reason : str, optional
        Why no repair is known (required when ``repair`` is None).

    Returns
    -------
    Finding

    Raises
    ------
    ValueError
        When no part fails and the paper's setting holds (no failure to report), or neither a repair nor a reason.
    """
    items = [(str(lab), str(v)) for lab, v in parts]
    failing = [lab for lab, v in items if v == "violated"]
    shown = "; ".join(failing[:6]) + (f"; … ({len(failing) - 6} more)" if len(failing) > 6 else "")
    region = Region(explored=len(items), failing=len(failing),
                    text=f"{what}: {len(failing)} of {len(items)} violated" + (f" — {shown}" if failing else ""))
    setting = PaperSetting(where=paper_where, measure=paper_measure, size=paper_size, fails=bool(paper_fails),
                           text=paper_text)
    return Finding(region=region, at_paper_setting=setting, repair=repair, no_repair_reason=no_repair_reason)


# --------------------------------------------------------------------------------------
# errata sheets
# --------------------------------------------------------------------------------------
def rows(results: Iterable, claims: Mapping[str, Any] | None = None, paper: str | None = None) -> list[dict]:
    """One row per violated result: the claim, its statement, the finding's parts and the counterexample.

    Parameters
    ----------
    results : iterable of verify.registry.Result
        A result set.
    claims : mapping of str to Claim, optional
        The registered claims, for their statements ("" where unknown).
    paper : str, optional
        Only this paper's claims.

    Returns
    -------
    list of dict
        ``claim``, ``paper``, ``statement``, ``scope`` (None when the violation carries no finding),
        ``region``, ``at_paper_setting``, ``counterexample``, ``repair``, ``repair_verdict``, ordered by scope
        (in_regime first), then claim id.
    """
    out = []
    for r in results:
        if str(r.verdict) != "violated":
            continue
        key = r.id.split(".", 1)[0]
        if paper is not None and key != paper:
            continue
        c = (claims or {}).get(r.id)
        f = r.finding if isinstance(r.finding, Finding) or r.finding is None else Finding.from_dict(r.finding)
        out.append({
            "claim": r.id, "paper": key, "statement": getattr(c, "statement", "") if c is not None else "",
            "scope": None if f is None else f.scope,
            "region": None if f is None else f.region.text,
            "at_paper_setting": None if f is None else f.at_paper_setting.to_dict(),
            "at_paper_setting_text": None if f is None else f.at_paper_setting.sentence(),
            "counterexample": r.counterexample,
            "repair": None if f is None or f.repair is None else f.repair.statement,
            "repair_verdict": None if f is None or f.repair is None else f.repair.verdict,
            "repair_evidence": None if f is None or f.repair is None else f.repair.evidence,
            "no_repair_reason": None if f is None else f.no_repair_reason,
            "reading": None if f is None else f.reading,
        })
    out.sort(key=lambda x: (SCOPE_ORDER.get(x["scope"], len(SCOPES)), x["claim"]))
    return out


def counts(found: Sequence[Mapping]) -> dict[str, dict[str, int]]:
    """Findings per scope per paper (``"none"`` for a violation without a finding).

    Parameters
    ----------
    found : sequence of mapping
        Rows of :func:`rows`.

    Returns
    -------
    dict
        paper -> scope -> count.
    """
    out: dict[str, dict[str, int]] = {}
    for x in found:
        per = out.setdefault(x["paper"], {})
        s = x["scope"] or "none"
        per[s] = per.get(s, 0) + 1
    return out


def _ce_text(ce: Any, limit: int = 300) -> str:
    if ce is None:
        return "—"
    if isinstance(ce, Mapping):
        text = ", ".join(f"{k} = {v}" for k, v in ce.items())
    else:
        text = str(ce)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def errata_markdown(found: Sequence[Mapping], title: str = "Findings") -> str:
    """The findings as a Markdown errata sheet, one section per paper, in-regime findings first.

    Parameters
    ----------
    found : sequence of mapping
        Rows of :func:`rows`.
    title : str, optional
        The sheet's heading.

    Returns
    -------
    str
        Markdown text (text from result files is passed through as is; escape it before it reaches a terminal).
    """
    lines = [f"## {title}", ""]
    if not found:
        return "\n".join(lines + ["No statement was found violated in this result set.", ""])
    by_paper: dict[str, list[Mapping]] = {}
    for x in found:
        by_paper.setdefault(x["paper"], []).append(x)
    for key, items in by_paper.items():
        per = counts(items)[key]
        lines += [f"### {key}", "", ", ".join(f"{n} {s}" for s, n in per.items()), ""]
        for x in items:
            lines.append(f"#### {x['claim']} — {x['scope'] or 'no finding recorded'}")
            lines.append("")
            if x["statement"]:
                lines.append(f"*Statement.* {' '.join(str(x['statement']).split())}")
                lines.append("")
            if x["scope"] is None:
                lines += ["The check reported no finding for this violation.", ""]
                continue
            lines.append(f"- **Where it fails:** {x['region']}")
            lines.append(f"- **At the paper's setting:** {x['at_paper_setting_text']}")
            lines.append(f"- **Smallest counterexample:** {_ce_text(x['counterexample'])}")
            if x["repair"] is not None:
                lines.append(f"- **Repair:** {x['repair']} — **{x['repair_verdict']}** ({x['repair_evidence']})")
            else:
                lines.append(f"- **Repair:** none known: {x['no_repair_reason']}")
            if x["reading"]:
                lines.append(f"- **Reading of the damaged text:** {x['reading']}")
            lines.append("")
    return "\n".join(lines)


def errata_text(found: Sequence[Mapping]) -> str:
    """The findings as plain text for a terminal, one block per finding, grouped by paper.

    Parameters
    ----------
    found : sequence of mapping
        Rows of :func:`rows`.

    Returns
    -------
    str
    """
    if not found:
        return "No statement was found violated in this result set.\n"
    out: list[str] = []
    paper = None
    for x in found:
        if x["paper"] != paper:
            paper = x["paper"]
            per = counts([y for y in found if y["paper"] == paper])[paper]
            out.append(f"{paper}: " + ", ".join(f"{n} {s}" for s, n in per.items()))
        out.append(f"  {x['claim']}  [{x['scope'] or 'no finding recorded'}]")
        if x["scope"] is None:
            continue
        out.append(f"    where it fails:   {x['region']}")
        out.append(f"    paper's setting:  {x['at_paper_setting_text']}")
        out.append(f"    counterexample:   {_ce_text(x['counterexample'], 200)}")
        if x["repair"] is not None:
            out.append(f"    repair:           {x['repair']} -> {x['repair_verdict']}")
        else:
            out.append(f"    repair:           none known: {x['no_repair_reason']}")
    return "\n".join(out) + "\n"


def json_document(found: Sequence[Mapping]) -> dict:
    """The ``dpverify findings --json`` document.

    Parameters
    ----------
    found : sequence of mapping
        Rows of :func:`rows`.

    Returns
    -------
    dict
        ``{"findings": [{"claim", "scope", "region", "at_paper_setting", "counterexample", "repair",
        "repair_verdict"}, ...], "counts": {paper: {scope: n}}}``.
    """
    keys = ("claim", "scope", "region", "at_paper_setting", "counterexample", "repair", "repair_verdict")
    return {"findings": [{k: x[k] for k in keys} for x in found], "counts": counts(found)}
