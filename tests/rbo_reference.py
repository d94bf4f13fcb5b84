"""The ``rbo`` package's RankingSimilarity, transcribed: the reference of polars_rank.agreement.rbo.

Transcribed from changyaochen/rbo, file rbo/rbo.py at commit
f062b4c566d99cad8bac19f3a34ba505f2ed5774 (MIT licence), its arithmetic kept line for
line. The release (rbo 0.1.3) pins numpy<2 and runs on NumPy 2 only when installed
without its pins, as CI does for tests/test_rbo_live.py, which checks this
transcription equals the release. Changes: the
numpy array type and ``np.isclose`` (``math.isclose`` with numpy's default
tolerances), ``tqdm`` and the verbose prints are left out; ``top_weightness`` is not
needed and not transcribed.
"""

from __future__ import annotations

import math
from typing import Any


class RankingSimilarity:
    """Similarity measures between two ranked lists (rbo/rbo.py, class RankingSimilarity)."""

    def __init__(self, S: list[Any], T: list[Any]) -> None:
        assert type(S) in [list]
        assert type(T) in [list]
        assert len(S) == len(set(S))
        assert len(T) == len(set(T))
        self.S, self.T = S, T
        self.N_S, self.N_T = len(S), len(T)
        self.p = 0.5  # just a place holder

    def assert_p(self, p: float) -> None:
        assert 0.0 < p < 1.0, "p must be between (0, 1)"
        self.p = p

    def _bound_range(self, value: float) -> float:
        if 0 <= value <= 1 or math.isclose(1, value, rel_tol=1e-05, abs_tol=1e-08):
            return value
        return min(1.0, max(0.0, value))

    def rbo(self, k: float | None = None, p: float = 1.0, ext: bool = False) -> float:
        """Eq. (4), or Eq. (7) for p != 1; ``ext``: Eq. (23)."""
        if not self.N_S and not self.N_T:
            return 1  # both lists are empty
        if not self.N_S or not self.N_T:
            return 0  # one list empty, one non-empty
        if k is None:
            k = float("inf")
        k = min(self.N_S, self.N_T, k)
        kk = int(k)
        A: list[float] = [0] * kk
        AO: list[float] = [0] * kk
        if p == 1.0:
            weights = [1.0 for _ in range(kk)]
        else:
            self.assert_p(p)
            weights = [1.0 * (1 - p) * p**d for d in range(kk)]
        S_running, T_running = {self.S[0]: True}, {self.T[0]: True}
        A[0] = 1 if self.S[0] == self.T[0] else 0
        AO[0] = weights[0] if self.S[0] == self.T[0] else 0
        for d in range(1, kk):
            tmp = 0
            if self.S[d] in T_running:
                tmp += 1
            if self.T[d] in S_running:
                tmp += 1
            if self.S[d] == self.T[d]:
                tmp += 1
            A[d] = 1.0 * ((A[d - 1] * d) + tmp) / (d + 1)
            if p == 1.0:
                AO[d] = ((AO[d - 1] * d) + A[d]) / (d + 1)
            else:
                AO[d] = AO[d - 1] + weights[d] * A[d]
            S_running[self.S[d]] = True
            T_running[self.T[d]] = True
        if ext and p < 1:
            return self._bound_range(AO[-1] + A[-1] * p**k)
        return self._bound_range(AO[-1])

    def rbo_ext(self, p: float = 0.98) -> float:
        """Eq. (32), the extrapolated RBO of uneven lists."""
        self.assert_p(p)
        if not self.N_S and not self.N_T:
            return 1
        if not self.N_S or not self.N_T:
            return 0
        if len(self.S) > len(self.T):
            L, S = self.S, self.T
        else:
            S, L = self.S, self.T
        s, l = len(S), len(L)  # noqa: E741
        X: list[float] = [0] * l
        A: list[float] = [0] * l
        rbo: list[float] = [0] * l
        S_running, L_running = {S[0]}, {L[0]}
        X[0] = 1 if S[0] == L[0] else 0
        A[0] = X[0]
        rbo[0] = 1.0 * (1 - p) * A[0]
        disjoint = 0.0
        ext_term = A[0] * p
        for d in range(1, l):
            if d < s:
                S_running.add(S[d])
                L_running.add(L[d])
                overlap_incr = 0
                if S[d] == L[d]:
                    overlap_incr += 1
                else:
                    if S[d] in L_running:
                        overlap_incr += 1
                    if L[d] in S_running:
                        overlap_incr += 1
                X[d] = X[d - 1] + overlap_incr
                A[d] = 2.0 * X[d] / (len(S_running) + len(L_running))
                rbo[d] = rbo[d - 1] + 1.0 * (1 - p) * (p**d) * A[d]
                ext_term = 1.0 * A[d] * p ** (d + 1)
            else:
                L_running.add(L[d])
                overlap_incr = 1 if L[d] in S_running else 0
                X[d] = X[d - 1] + overlap_incr
                A[d] = 1.0 * X[d] / (d + 1)
                rbo[d] = rbo[d - 1] + 1.0 * (1 - p) * (p**d) * A[d]
                X_s = X[s - 1]
                disjoint += 1.0 * (1 - p) * (p**d) * (X_s * (d + 1 - s) / (d + 1) / s)
                ext_term = 1.0 * ((X[d] - X_s) / (d + 1) + X[s - 1] / s) * p ** (d + 1)
        return self._bound_range(rbo[-1] + disjoint + ext_term)


# the package's own test cases (tests/test.py at the same commit): list_1, list_2 and the
# average overlap (rbo(p=1.0)) rounded to 3 decimals
PACKAGE_TESTS = [
    ("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz", 1.0),
    ("abcdefghijklmnopqrstuvwxyz", "abcdefg", 1.0),
    ("abcde", "fghij", 0.0),
    ("abcdefg", "zcavwxy", 0.312),  # RBO paper, Figure 5
    ("abcde", "bacde", 0.8),
    ("abcde", "abced", 0.95),
    ("a", "a", 1.0),
    ("a", "b", 0),
    ("", "", 1),
    ("a", "", 0),
    ("", "a", 0),
]


def overlap(S: list[Any], T: list[Any], d: int) -> int:
    """X_d = |S_:d & T_:d| (Webber, Moffat & Zobel, TOIS 2010, Section 4)."""
    return len(set(S[:d]) & set(T[:d]))


def rbo_min(S: list[Any], T: list[Any], p: float) -> float:
    """Eq. (11) at depth l, the longer list's length (a prefix of S beyond its end is S)."""
    k = max(len(S), len(T))
    x_k = overlap(S, T, k)
    total = sum(p**d / d * (overlap(S, T, d) - x_k) for d in range(1, k + 1))
    return (1 - p) / p * (total - x_k * math.log(1 - p))


def rbo_res(S: list[Any], T: list[Any], p: float) -> float:
    """Eq. (30): the residual of uneven lists, f = l + s - X_l."""
    s, l = sorted((len(S), len(T)))  # noqa: E741
    x_l = overlap(S, T, l)
    f = l + s - x_l
    term1 = s * sum(p**d / d for d in range(s + 1, f + 1))
    term2 = l * sum(p**d / d for d in range(l + 1, f + 1))
    term3 = x_l * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, f + 1)))
    return p**s + p**l - p**f - (1 - p) / p * (term1 + term2 + term3)
