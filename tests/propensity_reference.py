"""Plain-Python examination propensity estimators, written from the papers (a test oracle).

Standard library only, never polars, NumPy or polars_rank: loops over the log's rows
(each a dict with ``impression, position, query, item, click`` and the design's own
columns), as the papers state each quantity.

* **Swap-with-top** (Joachims, Swaminathan & Schnabel, "Unbiased Learning-to-Rank with
  Biased Feedback", WSDM 2017: the swap intervention and the ratio of click
  rates it gives; RandPair with pivot rank 1 in Wang et al., WSDM 2018),
  counted in both directions as polars-rank documents: the top result moved to k
  against the top left at 1, the k-th left at k against the k-th moved to 1.
* **RandTop-n** (Wang, Bendersky, Metzler & Najork, SIGIR 2016: uniformly
  shuffled top n, the click rate per position is proportional to the propensity).
* **Intervention harvesting** (Agarwal, Zaitsev, Wang, Li, Najork & Joachims, WSDM 2019):
  the interventional sets S_{k,k'} and the weights w_k(q, d) (the
  harvested click and non-click counts, weighted by 1 / w_k), the
  AllPairs objective, maximised by Newton's method over log p and log r with a Gaussian
  elimination written out.
* **EM for the position-based model** (Wang, Golbandi, Bendersky, Metzler & Najork,
  "Position Bias Estimation for Unbiased Learning to Rank in Personal Search", WSDM
  2018: the E-step's posteriors P(E=1, R=0 | C=0), P(E=0, R=1 | C=0) and
  the M-step's means) and its regression EM with a logistic regression on
  soft labels fitted by Newton steps, over the raw rows.

The papers' text could not be read while this was written: the quantities are cited
by name (the swap ratio, S_{k,k'}, w_k, the AllPairs objective, the E-step's
posteriors), not by section or equation number.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

Row = dict[str, Any]

# ------------------------------------------------------------------------ randomisation


def swap_reference(rows: list[Row]) -> dict[int, float]:
    """p_k / p_1 for k >= 2 from a swap-with-top log (column ``logged_position``)."""
    by_impression: dict[Any, list[Row]] = defaultdict(list)
    for row in rows:
        by_impression[row["impression"]].append(row)
    last = max(row["position"] for row in rows)
    swap_n = defaultdict(int)
    swap_top = defaultdict(int)   # the ranker's top result, now at k, clicked
    swap_one = defaultdict(int)   # the ranker's k-th result, now at 1, clicked
    control_n = defaultdict(int)
    control_click = defaultdict(int)
    for shown in by_impression.values():
        partner = next(r["position"] for r in shown if r["logged_position"] == 1)
        for r in shown:
            if partner == 1:
                control_n[r["position"]] += 1
                control_click[r["position"]] += r["click"]
            elif r["position"] == partner:
                swap_top[partner] += r["click"]
            elif r["position"] == 1:
                swap_n[partner] += 1
                swap_one[partner] += r["click"]
    out = {}
    for k in range(2, last + 1):
        moved_top = swap_top[k] / swap_n[k]
        stayed_k = control_click[k] / control_n[k]
        stayed_top = control_click[1] / control_n[1]
        moved_k = swap_one[k] / swap_n[k]
        out[k] = (moved_top + stayed_k) / (stayed_top + moved_k)
    return out


def randtop_reference(rows: list[Row], top_n: int) -> dict[int, float]:
    """p_k / p_1 for 2 <= k <= top_n: click rate at k over click rate at 1."""
    shown = defaultdict(int)
    clicked = defaultdict(int)
    for row in rows:
        shown[row["position"]] += 1
        clicked[row["position"]] += row["click"]
    first = clicked[1] / shown[1]
    return {k: clicked[k] / shown[k] / first for k in range(2, top_n + 1)}


# --------------------------------------------------------------------------- harvesting


def harvest_counts(rows: list[Row], ranker: str | None = "ranker"
                   ) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], float], int]:
    """Interventional sets: c^{k,k'}_k and its non-clicks, summed over (q, d) in S_{k,k'}."""
    placements: dict[tuple[Any, Any], set[tuple[int, Any]]] = defaultdict(set)
    w: dict[tuple[Any, Any, int], int] = defaultdict(int)       # w_k(q, d)
    clicks: dict[tuple[Any, Any, int], int] = defaultdict(int)
    for i, row in enumerate(rows):
        qd = (row["query"], row["item"])
        who = row[ranker] if ranker else ("impression", row["impression"], i)
        placements[qd].add((row["position"], who))
        w[(*qd, row["position"])] += 1
        clicks[(*qd, row["position"])] += row["click"]
    c_hat: dict[tuple[int, int], float] = defaultdict(float)
    not_c: dict[tuple[int, int], float] = defaultdict(float)
    for qd, placed in sorted(placements.items(), key=lambda kv: repr(kv[0])):
        positions = sorted({k for k, _ in placed})
        for k in positions:
            for k2 in positions:
                if k2 == k:
                    continue
                harvested = any(a == k and b == k2 and j != j2
                                for a, j in placed for b, j2 in placed)
                if harvested:
                    n = w[(*qd, k)]
                    c_hat[(k, k2)] += clicks[(*qd, k)] / n
                    not_c[(k, k2)] += (n - clicks[(*qd, k)]) / n
    last = max(row["position"] for row in rows)
    return c_hat, not_c, last


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*list(matrix[i]), vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            for cc in range(col, n + 1):
                a[r][cc] -= f * a[col][cc]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][cc] * x[cc] for cc in range(r + 1, n))) / a[r][r]
    return x


def all_pairs_reference(c_hat: dict[tuple[int, int], float],
                        not_c: dict[tuple[int, int], float], last: int) -> dict[int, float]:
    """AllPairs: max sum c log(p_k r_kk') + not_c log(1 - p_k r_kk'), p_1 = 1,
    subject to p_k r_kk' <= 1: a cell with no non-clicks gets a log barrier
    w log(-(log p_k + log r_kk')), w = 1, 0.1, ..., 1e-12 (interior point)."""
    pairs = [(k, j) for k in range(1, last + 1) for j in range(k + 1, last + 1)
             if c_hat.get((k, j), 0.0) + c_hat.get((j, k), 0.0) > 0]
    free = list(range(2, last + 1))
    names = [("p", k) for k in free] + [("r", pair) for pair in pairs]
    where = {name: i for i, name in enumerate(names)}
    barred = any(not_c.get(cell, 0.0) <= 0 for k, j in pairs for cell in ((k, j), (j, k)))
    theta = [0.0] * len(free)
    for k, j in pairs:
        c = c_hat.get((k, j), 0.0) + c_hat.get((j, k), 0.0)
        seen = c + not_c.get((k, j), 0.0) + not_c.get((j, k), 0.0)
        theta.append(math.log(c / (seen + 1 if barred else seen)))  # start with every s < 0

    def cells(th: list[float]) -> list[tuple[float, float, float, list[int]]]:
        out = []
        for k, j in pairs:
            for a, b in ((k, j), (j, k)):
                s = th[where[("r", (k, j))]] + (th[where[("p", a)]] if a > 1 else 0.0)
                idx = [where[("r", (k, j))]] + ([where[("p", a)]] if a > 1 else [])
                out.append((s, c_hat.get((a, b), 0.0), not_c.get((a, b), 0.0), idx))
        return out

    def objective(th: list[float], w: float) -> float:
        total = 0.0
        for s, c, n, _ in cells(th):
            if s >= 0:
                return -math.inf
            total += c * s + (n * math.log1p(-math.exp(s)) if n > 0 else w * math.log(-s))
        return total

    for w in [10.0 ** -e for e in range(13)] if barred else [0.0]:
        value = objective(theta, w)
        for _ in range(200):
            size = len(theta)
            grad = [0.0] * size
            hess = [[0.0] * size for _ in range(size)]
            for s, c, n, idx in cells(theta):
                if n > 0:
                    mu = math.exp(s)
                    g = c - n * mu / (1 - mu)
                    h = -n * mu / (1 - mu) ** 2
                else:
                    g, h = c + w / s, -w / s**2
                for i in idx:
                    grad[i] += g
                    for i2 in idx:
                        hess[i][i2] += h
            step = _solve(hess, [-g for g in grad])
            t = 1.0
            while t > 1e-12:
                trial = objective([a + t * b for a, b in zip(theta, step, strict=True)], w)
                if trial >= value - 1e-12 * abs(value):
                    break
                t /= 2
            if t <= 1e-12:
                break
            theta = [a + t * b for a, b in zip(theta, step, strict=True)]
            value = objective(theta, w)
            if max((abs(t * b) for b in step), default=0.0) < 1e-12:
                break
    return {k: math.exp(theta[where[("p", k)]]) for k in free}


def harvest_reference(rows: list[Row], ranker: str | None = "ranker") -> dict[int, float]:
    """p_k / p_1 by intervention harvesting and AllPairs."""
    return all_pairs_reference(*harvest_counts(rows, ranker))


# ---------------------------------------------------------------------------------- EM


def em_reference(rows: list[Row], iterations: int, features: list[str] | None = None,
                 newton_steps: int = 3) -> dict[int, float]:
    """theta_k / theta_1 after ``iterations`` EM iterations from theta = gamma = 0.5."""
    positions = sorted({row["position"] for row in rows})
    theta = dict.fromkeys(positions, 0.5)
    gamma = {(row["query"], row["item"]): 0.5 for row in rows}
    beta = [0.0] * (len(features or []) + 1)

    def x_of(row: Row) -> list[float]:
        return [1.0] + [float(row[f]) for f in features or []]

    def relevance(row: Row) -> float:
        if features:
            return 1 / (1 + math.exp(-sum(b * x for b, x in zip(beta, x_of(row), strict=True))))
        return gamma[(row["query"], row["item"])]

    for _ in range(iterations):
        examined = defaultdict(float)
        shown = defaultdict(float)
        relevant = defaultdict(float)
        shown_qd = defaultdict(float)
        targets = []
        for row in rows:
            t, g = theta[row["position"]], relevance(row)
            if row["click"]:
                e = r = 1.0
            else:
                e = t * (1 - g) / (1 - t * g)       # P(E = 1, R = 0 | C = 0)
                r = (1 - t) * g / (1 - t * g)       # P(E = 0, R = 1 | C = 0)
            examined[row["position"]] += e
            shown[row["position"]] += 1
            relevant[(row["query"], row["item"])] += r
            shown_qd[(row["query"], row["item"])] += 1
            targets.append(r)
        theta = {k: examined[k] / shown[k] for k in positions}
        if not features:
            gamma = {qd: relevant[qd] / shown_qd[qd] for qd in gamma}
            continue
        for _ in range(newton_steps):
            size = len(beta)
            grad = [0.0] * size
            hess = [[0.0] * size for _ in range(size)]
            for row, y in zip(rows, targets, strict=True):
                x = x_of(row)
                mu = relevance(row)
                for i in range(size):
                    grad[i] += x[i] * (y - mu)
                    for j in range(size):
                        hess[i][j] += x[i] * x[j] * mu * (1 - mu)
            step = _solve(hess, grad)
            beta = [b + s for b, s in zip(beta, step, strict=True)]
    return {k: theta[k] / theta[1] for k in positions if k > 1}
