"""Every belief figure, defined once: rows per game, then a statistic over pooled rows.

A figure is ``rows(game) -> 2-D array`` (one row per scored item) and ``stat(rows) -> number``;
the cluster bootstrap resamples games and reapplies ``stat``. Definitions follow MafiaScope
(section 7, appendices B and C):

* first order (villager side = predictors whose true role is not evil): each role guess about an
  alive other player. Accuracy over committed guesses (not Unknown); chance = the accuracy the
  same guesses would have if roles were a random permutation of the alive others' role multiset.
  Mafia recall over (predictor, alive Mafia) pairs, Unknown = miss; chance = alive Mafia / alive others.
* calibration: committed guesses' confidence vs correctness; ECE over bins [0,20) ... [80,100]
  (100 folded into the top bin), Brier = mean (confidence/100 - correct)^2.
* second order: A's social-map attitude toward B vs B's same-step role guess about A, mapped to
  an attitude at threshold T (Mafia at >= T → suspects, a town role at >= T → trusts, else
  neutral); Mafia-Mafia pairs excluded. Over-prediction ratio = predicted suspects / actual suspects.
* vote coupling: a vote lands on the top suspect of the voter's latest suspicion ranking taken
  before that vote (chance = 1 / alive others); also inside the voter's committed-Mafia set.
* role beliefs (``role_beliefs``: a weight on every role per player, normalised to sum 1 over
  named roles, Unknown dropped): villager-side answers about alive others; the probability put on
  the true role (chance = the base-rate forecast's, i.e. the true role's share of the alive others'
  role multiset), multi-class Brier over the game's roles (base-rate forecast as the baseline), and
  top-role accuracy.
* dynamics: consecutive suspicion rankings of one seat; L1 between the two vectors renormalised
  on their common alive support; top-suspect flips (pairs whose old top suspect died excluded);
  returns = flips onto a suspect that was top before.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from eval.beliefs._data import BeliefGame, entries, is_evil, norm_role, position, resolve

BIN_WIDTH = 20
THRESHOLDS = (30, 50, 70)
TRUSTS, NEUTRAL, SUSPECTS = 0, 1, 2
ATTITUDE_CODE = {"trusts": TRUSTS, "neutral": NEUTRAL, "suspects": SUSPECTS}
ATTITUDE_NAME = {v: k for k, v in ATTITUDE_CODE.items()}


def _arr(rows: list[tuple], width: int) -> np.ndarray:
    return np.asarray(rows, dtype=float).reshape(-1, width) if rows else np.empty((0, width))


def _role_guesses(game: BeliefGame, rec: Any) -> dict[str, tuple[str, float]]:
    out: dict[str, tuple[str, float]] = {}
    for e in entries(rec.answer_parsed):
        name = resolve(e.get("player"), game.players)
        if name and name not in out:
            out[name] = (norm_role(e.get("guessed_role")), float(e.get("confidence") or 0))
    return out


# -- first order -----------------------------------------------------------------------
FO_COLS = ("round", "committed", "correct", "chance", "unknown", "confidence")


def _villager_answers(game: BeliefGame, probe_id: str):
    """(answer, alive others at that step) for each villager-side answer to ``probe_id``."""
    for rec in game.probes_of(probe_id):
        if game.evil(rec.player):
            continue
        others = game.alive_others(rec.player, rec.round, rec.public_msg_seq)
        if others:
            yield rec, others


def first_order_rows(game: BeliefGame, probe_id: str = "role_assessment") -> np.ndarray:
    """One row per (villager-side probe answer, alive other player it names)."""
    rows = []
    for rec, others in _villager_answers(game, probe_id):
        true_roles = [game.role(o) for o in others]
        for target, (guess, conf) in _role_guesses(game, rec).items():
            if target not in others:
                continue
            committed = guess != "Unknown"
            correct = committed and guess == game.role(target)
            chance = true_roles.count(guess) / len(others) if committed else math.nan
            rows.append((rec.round, committed, correct, chance, not committed, conf))
    return _arr(rows, len(FO_COLS))


def mafia_recall_rows(game: BeliefGame, probe_id: str = "role_assessment") -> np.ndarray:
    """(round, hit, chance) per (villager-side probe answer, alive Mafia it names)."""
    rows = []
    for rec, others in _villager_answers(game, probe_id):
        evil = [o for o in others if game.evil(o)]
        if not evil:
            continue
        chance = len(evil) / len(others)
        guesses = _role_guesses(game, rec)
        for target in evil:
            if target in guesses:
                rows.append((rec.round, is_evil(guesses[target][0]), chance))
    return _arr(rows, 3)


def accuracy(rows: np.ndarray) -> float | None:
    c = rows[rows[:, 1] == 1] if rows.size else rows
    return float(c[:, 2].mean()) if len(c) else None


def accuracy_chance(rows: np.ndarray) -> float | None:
    c = rows[rows[:, 1] == 1] if rows.size else rows
    return float(c[:, 3].mean()) if len(c) else None


def unknown_share(rows: np.ndarray) -> float | None:
    return float(rows[:, 4].mean()) if len(rows) else None


def mean_col(col: int):
    def stat(rows: np.ndarray) -> float | None:
        return float(rows[:, col].mean()) if len(rows) else None

    return stat


# -- role beliefs (distributions) ----------------------------------------------------------
RB_COLS = ("round", "p_true", "p_true_chance", "brier", "brier_chance", "top_correct")


def _distribution(beliefs: Any) -> dict[str, float] | None:
    """Weights → canonical role → probability (Unknown dropped); None when nothing is left."""
    if not isinstance(beliefs, dict):
        return None
    out: dict[str, float] = {}
    for role, w in beliefs.items():
        try:
            w = float(w)
        except (TypeError, ValueError):
            continue
        canon = norm_role(role)
        if canon != "Unknown" and w > 0:
            out[canon] = out.get(canon, 0.0) + w
    total = sum(out.values())
    return {r: w / total for r, w in out.items()} if total > 0 else None


def _multi_brier(p: dict[str, float], truth: str, roles: list[str]) -> float:
    return sum((p.get(r, 0.0) - (1.0 if r == truth else 0.0)) ** 2 for r in set(roles) | set(p) | {truth})


def role_belief_rows(game: BeliefGame, probe_id: str = "role_beliefs") -> np.ndarray:
    """One row per (villager-side ``role_beliefs`` answer, alive other player it gives a distribution for)."""
    rows = []
    game_roles = sorted({game.role(p) for p in game.players})
    for rec, others in _villager_answers(game, probe_id):
        true_roles = [game.role(o) for o in others]
        base = {r: true_roles.count(r) / len(others) for r in set(true_roles)}
        seen: set[str] = set()
        for e in entries(rec.answer_parsed):
            target = resolve(e.get("player"), game.players)
            if target is None or target in seen or target not in others:
                continue
            seen.add(target)
            p = _distribution(e.get("beliefs"))
            if p is None:
                continue
            truth = game.role(target)
            top = max(p, key=lambda r: p[r])
            rows.append((rec.round, p.get(truth, 0.0), base.get(truth, 0.0), _multi_brier(p, truth, game_roles),
                         _multi_brier(base, truth, game_roles), float(top == truth)))
    return _arr(rows, len(RB_COLS))


# -- calibration -----------------------------------------------------------------------
def calibration_rows(game: BeliefGame, probe_id: str = "role_assessment") -> np.ndarray:
    """(confidence in [0,1], correct) per committed villager-side guess."""
    fo = first_order_rows(game, probe_id)
    c = fo[fo[:, 1] == 1] if fo.size else fo
    return np.column_stack([c[:, 5] / 100.0, c[:, 2]]) if len(c) else np.empty((0, 2))


def bin_index(conf: np.ndarray, width: int = BIN_WIDTH) -> np.ndarray:
    """Bin of each confidence in [0,1]: fixed width ``width``/100, 1.0 folded into the top bin."""
    nbins = 100 // width
    return np.minimum((np.clip(conf, 0, 1) * 100 // width).astype(int), nbins - 1)


def ece(rows: np.ndarray, width: int = BIN_WIDTH) -> float | None:
    """Expected calibration error: sum over bins of (bin share) * |accuracy - mean confidence|."""
    if not len(rows):
        return None
    conf, correct = rows[:, 0], rows[:, 1]
    bins = bin_index(conf, width)
    total = 0.0
    for b in np.unique(bins):
        m = bins == b
        total += m.mean() * abs(correct[m].mean() - conf[m].mean())
    return float(total)


def brier(rows: np.ndarray) -> float | None:
    return float(np.mean((rows[:, 0] - rows[:, 1]) ** 2)) if len(rows) else None


def reliability_bins(rows: np.ndarray, width: int = BIN_WIDTH) -> list[dict[str, Any]]:
    out = []
    bins = bin_index(rows[:, 0], width) if len(rows) else np.array([], dtype=int)
    for b in range(100 // width):
        m = bins == b
        n = int(m.sum())
        out.append({
            "bin": f"{b * width}-{(b + 1) * width - 1 if b < 100 // width - 1 else 100}",
            "n": n,
            "accuracy": float(rows[m, 1].mean()) if n else None,
            "mean_confidence": float(rows[m, 0].mean()) if n else None,
        })
    return out


# -- second order ----------------------------------------------------------------------
SO_COLS = ("predicted", "actual_t30", "actual_t50", "actual_t70", "predictor_mafia", "own_confidence")


def attitude_from_guess(guess: str | None, confidence: float, threshold: float) -> int:
    """A role guess about ME seen as an attitude: Mafia → suspects, town role → trusts, at ≥ threshold."""
    if guess is None or guess == "Unknown" or confidence < threshold:
        return NEUTRAL
    return SUSPECTS if is_evil(guess) else TRUSTS


def second_order_rows(game: BeliefGame, social_id: str = "social_map", role_id: str = "role_assessment") -> np.ndarray:
    """One row per (predictor A's social-map entry about B, B's same-step role guess about A)."""
    assessments = {(r.round, r.public_msg_seq, r.player): _role_guesses(game, r) for r in game.probes_of(role_id)}
    rows = []
    for rec in game.probes_of(social_id):
        a = rec.player
        a_mafia = game.evil(a)
        own = assessments.get((rec.round, rec.public_msg_seq, a), {})
        for e in entries(rec.answer_parsed, "toward_me"):
            b = resolve(e.get("player"), game.players)
            att = ATTITUDE_CODE.get(str(e.get("attitude", "")).lower())
            if b is None or b == a or att is None or not game.alive_at(b, rec.round, rec.public_msg_seq):
                continue
            if a_mafia and game.evil(b):
                continue  # a partner's certainty reflects role knowledge, not reading
            theirs = assessments.get((rec.round, rec.public_msg_seq, b))
            if theirs is None or a not in theirs:
                continue
            guess, conf = theirs[a]
            own_conf = own.get(b, ("Unknown", 0.0))[1]
            rows.append((att, *(attitude_from_guess(guess, conf, t) for t in THRESHOLDS), a_mafia, own_conf))
    return _arr(rows, len(SO_COLS))


def _actual_col(threshold: int) -> int:
    return 1 + THRESHOLDS.index(threshold)


def overprediction(threshold: int = 50):
    def stat(rows: np.ndarray) -> float | None:
        actual = (rows[:, _actual_col(threshold)] == SUSPECTS).sum() if len(rows) else 0
        return float((rows[:, 0] == SUSPECTS).sum() / actual) if actual else None

    return stat


def agreement(threshold: int = 50):
    def stat(rows: np.ndarray) -> float | None:
        return float((rows[:, 0] == rows[:, _actual_col(threshold)]).mean()) if len(rows) else None

    return stat


def majority_baseline(threshold: int = 50):
    def stat(rows: np.ndarray) -> float | None:
        if not len(rows):
            return None
        return float(np.bincount(rows[:, _actual_col(threshold)].astype(int), minlength=3).max() / len(rows))

    return stat


def majority_class(rows: np.ndarray, threshold: int = 50) -> str | None:
    if not len(rows):
        return None
    return ATTITUDE_NAME[int(np.bincount(rows[:, _actual_col(threshold)].astype(int), minlength=3).argmax())]


def agreement_gain(threshold: int = 50):
    agree, base = agreement(threshold), majority_baseline(threshold)

    def stat(rows: np.ndarray) -> float | None:
        a, b = agree(rows), base(rows)
        return None if a is None or b is None else a - b

    return stat


# -- vote coupling ---------------------------------------------------------------------
VC_COLS = ("voter_mafia", "top1_hit", "top1_chance", "set_hit", "set_chance", "post_hit")


def _scores(game: BeliefGame, rec: Any, me: str, allowed: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for e in entries(rec.answer_parsed):
        name = resolve(e.get("player"), game.players)
        if name and name != me and name in allowed and name not in out:
            try:
                out[name] = float(e.get("score"))
            except (TypeError, ValueError):
                continue
    return out


def top_suspect(scores: dict[str, float]) -> str | None:
    """Highest score; ties go to the one the answer listed first."""
    return max(scores, key=lambda n: scores[n]) if scores else None


def vote_rows(game: BeliefGame, rank_id: str = "suspicion_ranking", role_id: str = "role_assessment") -> np.ndarray:
    ranks = game.probes_of(rank_id)
    roles = game.probes_of(role_id)
    rows = []
    for v in game.votes:
        at = (v.round, v.seq)
        allowed = game.alive_others(v.voter, v.round, v.seq if math.isfinite(v.seq) else 10**9)
        if not allowed:
            continue
        mine = [r for r in ranks if r.player == v.voter]
        before = [r for r in mine if position(r.round, r.public_msg_seq) < at]
        after = [r for r in mine if r.round == v.round and position(r.round, r.public_msg_seq) >= at]
        top1 = top1_chance = math.nan
        if before:
            top = top_suspect(_scores(game, before[-1], v.voter, allowed))
            if top is not None:
                top1, top1_chance = float(top == v.target), 1 / len(allowed)
        post = math.nan
        if after:
            top = top_suspect(_scores(game, after[0], v.voter, allowed))
            post = float(top == v.target) if top else math.nan
        set_hit = set_chance = math.nan
        mine_roles = [r for r in roles if r.player == v.voter and position(r.round, r.public_msg_seq) < at]
        if mine_roles:
            committed = {n for n, (g, _) in _role_guesses(game, mine_roles[-1]).items() if n in allowed and is_evil(g)}
            if committed:
                set_hit, set_chance = float(v.target in committed), len(committed) / len(allowed)
        rows.append((game.evil(v.voter), top1, top1_chance, set_hit, set_chance, post))
    return _arr(rows, len(VC_COLS))


def nanmean_col(col: int):
    def stat(rows: np.ndarray) -> float | None:
        vals = rows[:, col] if len(rows) else rows
        vals = vals[~np.isnan(vals)] if len(vals) else vals
        return float(vals.mean()) if len(vals) else None

    return stat


# -- belief dynamics -------------------------------------------------------------------
DYN_COLS = ("predictor_mafia", "l1", "flip", "returned")


def dynamics_rows(game: BeliefGame, rank_id: str = "suspicion_ranking") -> np.ndarray:
    """One row per consecutive pair of one seat's parsed suspicion rankings."""
    rows = []
    by_seat: dict[str, list[Any]] = {}
    for r in game.probes_of(rank_id):
        by_seat.setdefault(r.player, []).append(r)
    for me, recs in by_seat.items():
        mafia = game.evil(me)
        tops_before: list[str] = []
        prev_scores: dict[str, float] | None = None
        prev_top: str | None = None
        for rec in recs:
            alive = game.alive_others(me, rec.round, rec.public_msg_seq)
            scores = _scores(game, rec, me, alive)
            top = top_suspect(scores)
            if prev_scores is not None and scores:
                common = [n for n in scores if n in prev_scores]
                l1 = math.nan
                p = np.array([max(prev_scores[n], 0.0) for n in common])
                q = np.array([max(scores[n], 0.0) for n in common])
                if len(common) >= 2 and p.sum() > 0 and q.sum() > 0:
                    l1 = float(np.abs(p / p.sum() - q / q.sum()).sum())
                flip = returned = math.nan
                if prev_top is not None and top is not None and prev_top in alive:  # death-forced flips excluded
                    flip = float(top != prev_top)
                    if flip:
                        returned = float(top in tops_before)
                rows.append((mafia, l1, flip, returned))
            if scores:
                if prev_top is not None and top != prev_top:
                    tops_before.append(prev_top)
                prev_scores, prev_top = scores, top
    return _arr(rows, len(DYN_COLS))


def select(rows: np.ndarray, col: int, value: float) -> np.ndarray:
    return rows[rows[:, col] == value] if len(rows) else rows


# -- personality -----------------------------------------------------------------------
TRAITS = ("O", "C", "E", "A", "N")


def personality_rows(game: BeliefGame, probe_ids: tuple[str, ...] = ("personality", "personality_profile")) -> np.ndarray:
    """(|attributed - generating|, |50 - generating|) per trait, when the log has generating vectors."""
    if not game.personality:
        return np.empty((0, 2))
    rows = []
    for pid in probe_ids:
        for rec in game.probes_of(pid):
            for e in entries(rec.answer_parsed):
                target = resolve(e.get("player"), game.players)
                truth = game.personality.get(target or "")
                if not truth or target == rec.player:
                    continue
                for t in TRAITS:
                    try:
                        guess, true = float(e[t]), float(truth[t])
                    except (KeyError, TypeError, ValueError):
                        continue
                    rows.append((abs(guess - true), abs(50.0 - true)))
    return _arr(rows, 2)


# -- planned action --------------------------------------------------------------------
PA_COLS = ("voter_mafia", "followed", "chance")
VOTE_PLAN = ("vote", "accus", "elimin", "lynch", "投", "голос")


def plan_rows(game: BeliefGame, probe_id: str = "planned_action") -> np.ndarray:
    """One row per day vote that the voter planned earlier that round (its latest vote/accuse plan naming
    an alive other): (voter on the Mafia side, vote on the planned target, chance = 1 / alive others)."""
    plans = game.probes_of(probe_id)
    rows = []
    for v in game.votes:
        at = (v.round, v.seq)
        allowed = game.alive_others(v.voter, v.round, v.seq if math.isfinite(v.seq) else 10**9)
        mine = [r for r in plans if r.player == v.voter and r.round == v.round and position(r.round, r.public_msg_seq) < at
                and isinstance(r.answer_parsed, dict) and any(w in str(r.answer_parsed.get("action", "")).lower() for w in VOTE_PLAN)]
        if not mine or not allowed:
            continue
        target = resolve(mine[-1].answer_parsed.get("target"), game.players)
        if target in allowed:
            rows.append((game.evil(v.voter), float(target == v.target), 1 / len(allowed)))
    return _arr(rows, len(PA_COLS))
