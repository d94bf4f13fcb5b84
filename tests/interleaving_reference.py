"""mpkato/interleaving, transcribed: the reference of ``polars_rank.online``'s interleaving.

Source: https://github.com/mpkato/interleaving, commit
7907f7dd61bfcad57ad602b5c93e601677025da7, files ``interleaving/balanced.py``,
``interleaving/team_draft.py``, ``interleaving/probabilistic.py``, ``interleaving/optimized.py``,
``interleaving/interleaving_method.py`` and ``interleaving/ranking.py`` (MIT licence,
Tomohiro Manabe and Makoto P. Kato). Pure Python (NumPy only where the original calls
it for a maximum or a log-sum-exp).

Faithful to the original line by line, with one change: the random draws
(``np.random.randint``, ``np.random.choice``, ``np.random.rand``, ``np.random.shuffle``)
are calls of an injected ``rng`` that is also told the position being filled
(``len(result)``), so a test can drive the reference with the coins polars-rank draws
for that (query, position). :class:`NumpyRng` is the original's behaviour. The
``sample_num`` pre-sampling and ``dump_rankings`` are left out (no numbers depend on
them); ``Probabilistic`` keeps ``replace=True`` (Hofmann et al.'s method) and its
``replace=False`` variant.
"""

# ruff: noqa: EM101, B905, RUF005  (the original's lines, kept as written)
from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np


class NumpyRng:
    """The original's draws: NumPy's global generator; the position is ignored."""

    def randint(self, low: int, high: int, step: int) -> int:
        return int(np.random.randint(low, high))

    def choice(self, seq: list[Any], step: int) -> Any:
        return np.random.choice(seq)

    def rand(self, step: int) -> float:
        return float(np.random.rand())

    def shuffle(self, seq: list[Any], step: int) -> None:
        np.random.shuffle(seq)


# ---- ranking.py -------------------------------------------------------------------

class BalancedRanking(list):  # type: ignore[type-arg]
    a: list[Any]
    b: list[Any]


class TeamRanking(list):  # type: ignore[type-arg]
    def __init__(self, team_indices: Any, contents: Any = ()) -> None:
        self += list(contents)
        self.teams: dict[int, Any] = {i: set() for i in team_indices}


class ProbabilisticRanking(list):  # type: ignore[type-arg]
    def __init__(self, lists: Any, contents: Any = ()) -> None:
        self += list(contents)
        self.lists = lists


# ---- interleaving_method.py -------------------------------------------------------

class InterleavingMethod:
    def __init__(self, lists: Any, max_length: int | None = None, rng: Any = None) -> None:
        self.max_length = max_length
        if self.max_length is None:
            self.max_length = min([len(x) for x in lists])
        self.lists = lists
        self.rng = rng or NumpyRng()

    def interleave(self) -> Any:
        return self._sample(self.max_length, self.lists)

    def _sample(self, max_length: Any, lists: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def evaluate(cls, ranking: Any, clicks: Any, **kw: Any) -> list[tuple[int, int]]:
        scores = cls.compute_scores(ranking, clicks, **kw)
        result = []
        for i in range(len(scores)):
            for j in range(i + 1, len(scores)):
                if scores[i] > scores[j]:
                    result.append((i, j))
                elif scores[i] < scores[j]:
                    result.append((j, i))
        return result

    @classmethod
    def compute_scores(cls, ranking: Any, clicks: Any, **kw: Any) -> Any:
        raise NotImplementedError


# ---- balanced.py ------------------------------------------------------------------

class Balanced(InterleavingMethod):
    def __init__(self, lists: Any, max_length: int | None = None, rng: Any = None) -> None:
        if len(lists) != 2:
            raise ValueError("lists must be two rankings")
        super().__init__(lists, max_length=max_length, rng=rng)

    def _sample(self, max_length: Any, lists: Any) -> Any:
        a, b = lists[0], lists[1]
        is_a_first = self.rng.randint(0, 2, 0) == 0
        result = BalancedRanking()
        k_a = 0
        k_b = 0
        while k_a < len(a) and k_b < len(b) and len(result) < max_length:
            if (k_a < k_b) or (k_a == k_b and is_a_first):
                if a[k_a] not in result:
                    result.append(a[k_a])
                k_a += 1
            else:
                if b[k_b] not in result:
                    result.append(b[k_b])
                k_b += 1
        result.a = a
        result.b = b
        return result

    @classmethod
    def compute_scores(cls, ranking: Any, clicks: Any, **kw: Any) -> Any:
        if len(clicks) == 0:
            return [0, 0]
        c_max = np.max(clicks)
        r_max = ranking[c_max]
        k_a = ranking.a.index(r_max) if r_max in ranking.a else len(ranking.a)
        k_b = ranking.b.index(r_max) if r_max in ranking.b else len(ranking.b)
        k = np.min([k_a, k_b])
        h_a = len([c for c in clicks if ranking[c] in ranking.a[:k + 1]])
        h_b = len([c for c in clicks if ranking[c] in ranking.b[:k + 1]])
        return [h_a, h_b]


# ---- team_draft.py ----------------------------------------------------------------

class TeamDraft(InterleavingMethod):
    def _sample(self, max_length: Any, lists: Any) -> Any:
        result = TeamRanking(range(len(lists)))
        empty_teams: set[int] = set()
        while len(result) < max_length:
            selected_team = self._select_team(result.teams, empty_teams, len(result))
            if selected_team is None:
                break
            docs = [x for x in lists[selected_team] if x not in result]
            if len(docs) > 0:
                selected_doc = docs[0]
                result.append(selected_doc)
                result.teams[selected_team].add(selected_doc)
            else:
                empty_teams.add(selected_team)
        return result

    def _select_team(self, teams: Any, empty_teams: Any, step: int) -> Any:
        team_lens = [len(teams[i]) for i in teams if i not in empty_teams]
        if len(team_lens) == 0:
            return None
        min_team_num = min(team_lens)
        available_teams = [i for i in teams
                           if len(teams[i]) == min_team_num and i not in empty_teams]
        if len(available_teams) == 0:
            return None
        return self.rng.choice(available_teams, step)

    @classmethod
    def compute_scores(cls, ranking: Any, clicks: Any, **kw: Any) -> Any:
        return {i: len([c for c in clicks if ranking[c] in ranking.teams[i]])
                for i in ranking.teams}


# ---- probabilistic.py -------------------------------------------------------------

class Softmax:
    def __init__(self, tau: float, ranking: Any, rng: Any = None) -> None:
        self.tau = tau
        self.ranking = ranking
        self.numerators = 1.0 / np.array(range(1, len(ranking) + 1)) ** tau
        self.doc_index = {docid: r for r, docid in enumerate(ranking)}
        self.denominator = np.sum(self.numerators)
        self._original_denominator = self.denominator
        self._non_zero_index = set(range(len(self.numerators)))
        self.rng = rng or NumpyRng()

    def delete(self, docid: Any) -> float:
        if docid not in self.doc_index:
            return 0.0
        old_denominator = self.denominator
        idx = self.doc_index[docid]
        numerator = self.numerators[idx]
        self.denominator -= numerator
        self._non_zero_index.remove(idx)
        if not self.denominator > 0:
            self.denominator = 0
        if old_denominator <= 0:
            return 0.0
        return float(numerator / old_denominator)

    def reset(self) -> None:
        self.denominator = self._original_denominator
        self._non_zero_index = set(range(len(self.numerators)))

    def sample(self, step: int = 0) -> Any:
        if self.denominator == 0:
            return None
        p = self.rng.rand(step) * self.denominator
        cum = 0.0
        for i in self._non_zero_index:
            cum += self.numerators[i]
            if cum > p:
                return self.ranking[i]
        return self.ranking[i]


class ProbabilisticScore(dict):  # type: ignore[type-arg]
    allocations: dict[tuple[int, ...], Any]


class Probabilistic(InterleavingMethod):
    def __init__(self, lists: Any, max_length: int | None = None, tau: float = 3.0,
                 replace: bool = True, rng: Any = None) -> None:
        rng = rng or NumpyRng()
        self._softmaxs = {i: Softmax(tau, x, rng) for i, x in enumerate(lists)}
        self._replace = replace
        super().__init__(lists, max_length=max_length, rng=rng)

    def _sample(self, max_length: Any, lists: Any) -> Any:
        ranker_indices = list(range(len(lists)))
        result = ProbabilisticRanking(lists)
        available_rankers: list[int] = []
        while len(result) < max_length and len(ranker_indices) > 0:
            if len(available_rankers) == 0:
                available_rankers = list(ranker_indices)
                self.rng.shuffle(available_rankers, len(result))
            if self._replace:
                ranker_idx = self.rng.choice(available_rankers, len(result))
            else:
                ranker_idx = available_rankers.pop()
            docid = self._softmaxs[ranker_idx].sample(len(result))
            if docid is None:
                ranker_indices.remove(ranker_idx)
                available_rankers = list(ranker_indices)
            else:
                result.append(docid)
                for ranker_idx in ranker_indices:
                    if docid in self._softmaxs[ranker_idx].doc_index:
                        self._softmaxs[ranker_idx].delete(docid)
        for i in self._softmaxs:
            self._softmaxs[i].reset()
        return result

    @classmethod
    def compute_scores(cls, ranking: Any, clicks: Any, tau: float = 3.0,
                       n: int = 10**4, **kw: Any) -> Any:
        L = ranking
        C = {ranking[index] for index in clicks}
        if len(ranking.lists) == 2:
            # [Hofmann+, CIKM 2011]
            o = ProbabilisticScore({0: 0.0, 1: 0.0})
            o.allocations = {}
            for i in range(2 ** len(ranking)):
                a = []
                for _d in L:
                    a.append(i % 2)
                    i //= 2
                c = [0, 0]
                R = [Softmax(tau, R_j) for R_j in ranking.lists]
                cum_p = 1.0
                for j, d in zip(a, L):
                    j_alter = (j + 1) % 2
                    if d in C:
                        c[j] += 1
                    cum_p *= R[j].delete(d)
                    R[j_alter].delete(d)
                if c[0] < c[1]:
                    o[1] += cum_p
                elif c[1] < c[0]:
                    o[0] += cum_p
                o.allocations[tuple(a)] = (c, cum_p)
            return o
        if len(ranking.lists) > 2:
            # [Schuth+, SIGIR 2015]
            from scipy import special

            R = [Softmax(tau, R_j) for R_j in ranking.lists]
            A_prime: list[Any] = [(np.zeros(len(R)), 0.0, [])]
            threshold = 1 / len(R) * n ** (1 / len(L))
            for d in L:
                if len(C) == 0:
                    break
                d_in_C = d in C
                if d_in_C:
                    C.remove(d)
                P = np.zeros(len(R))
                R_non_zero = []
                for j, R_j in enumerate(R):
                    P[j] = R_j.delete(d)
                    if P[j] > 0.0:
                        R_non_zero.append((j, R_j))
                if len(R_non_zero) == 0:
                    break
                A, A_prime = A_prime, []
                is_pass = np.random.rand(len(A), len(R_non_zero)) <= threshold
                for i, (o, p, a) in enumerate(A):
                    R_used = [R_non_zero[k]
                              for k in range(len(R_non_zero)) if is_pass[i][k]]
                    for j, _R_j in R_used:
                        p_prime = p + np.log(P[j])
                        o_prime = np.copy(o)
                        if d_in_C:
                            o_prime[j] += 1
                        A_prime.append((o_prime, p_prime, a + [j]))
            o = np.zeros(len(R))
            allocations = {}
            if len(A_prime) > 0:
                p_log_all = np.array([p_prime for _, p_prime, _ in A_prime])
                p_all = np.exp(p_log_all - special.logsumexp(p_log_all))
                for i, (o_prime, _, a) in enumerate(A_prime):
                    p_prime = p_all[i]
                    o += o_prime * p_prime
                    allocations[tuple(a)] = (list(o_prime), p_prime)
            result = ProbabilisticScore({i: o[i] for i in range(len(R))})
            result.allocations = allocations
            return result
        raise ValueError("Invalid number of original lists")


# ---- optimized.py (the credits and the linear programme, for given rankings) ---------

class CreditRanking(list):  # type: ignore[type-arg]
    def __init__(self, num_rankers: int, contents: Any = ()) -> None:
        self += list(contents)
        self.credits: dict[int, Any] = {i: defaultdict(float) for i in range(num_rankers)}


class Optimized:
    """``Optimized``'s credits and programme; its prefix-constraint sampling of the
    candidate rankings is left out: the tests give it polars-rank's candidates."""

    def __init__(self, lists: Any, max_length: int | None = None) -> None:
        self.lists = lists
        self.max_length = max_length or min(len(x) for x in lists)
        self._credit_func = lambda x: 1.0 / x

    def credit_ranking(self, lists: Any, contents: Any) -> Any:
        result = CreditRanking(len(lists), contents)
        for docid in result:
            for team in result.credits:
                if docid in lists[team]:
                    rank = lists[team].index(docid) + 1
                else:
                    rank = len(lists[team]) + 1
                result.credits[team][docid] = self._credit_func(rank)
        return result

    def _compute_probabilities(self, lists: Any, rankings: Any) -> Any:
        from scipy.optimize import linprog

        A_p_sum = np.array([1] * len(rankings))
        ub_cons = self._unbiasedness_constraints(lists, rankings)
        sensitivity = self._sensitivity(lists, rankings)
        A_eq = np.vstack((A_p_sum, ub_cons))
        b_eq = np.array([1.0] + [0.0] * ub_cons.shape[0])
        res = linprog(sensitivity, A_eq=A_eq, b_eq=b_eq, bounds=[(0, 1)] * len(rankings))
        return res.success, res.x, res.fun

    def _unbiasedness_constraints(self, lists: Any, rankings: Any) -> Any:
        result = []
        credits = np.zeros((self.max_length, len(rankings), len(lists)))
        for rid, ranking in enumerate(rankings):
            for idx, docid in enumerate(ranking):
                for team in ranking.credits:
                    credits[idx, rid, team] = ranking.credits[team][docid]
                    if idx > 0:
                        credits[idx, rid, team] += credits[idx - 1, rid, team]
        for i in range(len(lists) - 1):
            result.append(credits[:, :, i] - credits[:, :, i + 1])
        return np.vstack(result)

    def _sensitivity(self, lists: Any, rankings: Any) -> Any:
        mu = np.zeros(len(rankings))
        for rid, ranking in enumerate(rankings):
            for idx, docid in enumerate(ranking):
                click_prob = 1.0 / (idx + 1)
                credit = np.sum([ranking.credits[x][docid] for x in ranking.credits])
                mu[rid] += click_prob * credit
        mu /= len(lists)
        var = np.zeros(len(rankings))
        for rid, ranking in enumerate(rankings):
            for x in ranking.credits:
                v = 0.0
                for idx, docid in enumerate(ranking):
                    click_prob = 1.0 / (idx + 1)
                    if docid in ranking.credits[x]:
                        v += click_prob * ranking.credits[x][docid]
                v -= mu[rid]
                var[rid] += v ** 2
        return var

    @classmethod
    def compute_scores(cls, ranking: Any, clicks: Any) -> Any:
        return {i: sum([ranking.credits[i][ranking[c]] for c in clicks])
                for i in ranking.credits}


# ---- an exact list distribution, by brute force over the reference's own draws -----

def probabilistic_distribution(lists: Any, max_length: int | None = None,
                               tau: float = 3.0) -> dict[tuple[Any, ...], float]:
    """Every list :class:`Probabilistic` (``replace=True``) can draw, with its probability.

    Not in the original: enumerates its sampling process (a ranker chosen uniformly
    among those with documents left, then a document by its softmax) with the
    original's :class:`Softmax` for the probabilities.
    """
    if max_length is None:
        max_length = min(len(x) for x in lists)
    out: dict[tuple[Any, ...], float] = defaultdict(float)

    def walk(prefix: list[Any], prob: float) -> None:
        live = [j for j, x in enumerate(lists) if any(d not in prefix for d in x)]
        if len(prefix) >= max_length or not live:
            out[tuple(prefix)] += prob
            return
        for j in live:
            sm = Softmax(tau, lists[j])
            for d in prefix:
                sm.delete(d)
            for d in lists[j]:
                if d in prefix:
                    continue
                probe = Softmax(tau, lists[j])
                for e in prefix:
                    probe.delete(e)
                walk([*prefix, d], prob / len(live) * probe.delete(d))

    walk([], 1.0)
    return dict(out)
