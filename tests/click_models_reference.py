"""PyClick's click models, transcribed (pure Python), and DBN written from the book.

Transcribed from markovi/PyClick, commit 98e7e460231b2b607bf58b2f16a4fd1124cee042
(BSD licence, (C) 2015 Ilya Markov, Luka Stout, Aleksandr Chuklin and others), files
``pyclick/click_models/{Param,ParamContainer,ClickModel,Inference,PBM,CM,DCM,UBM,SDBN,
DBN,Evaluation}.py`` and ``pyclick/search_session/{SearchSession,SearchResult}.py``:
the same parameters (numerator 1, denominator 2), the same updates, the same EM loop
(each iteration starts from a copy of the initial model and reads the previous
iteration's values), the same evaluation. Left out: JSON, printing, ``__iadd__``
(model merging), ``predict_relevance``, CCM and the task-centric model. Kept as written,
faults included (``DBN._get_tail_clicks`` and the rest: see ``BookDBN`` below and
docs/click-models.md). Ranks are 0-based, as PyClick's.

``BookDBN`` and ``BookCCM`` (at the end) are not PyClick's: plain-Python DBN and CCM
with the exact EM posteriors (Chuklin, Markov & de Rijke 2015, sec. 2.7-2.8 and 3.2;
Chapelle & Zhang 2009; Guo et al. 2009), a loop over sessions and ranks with the
recursions as written there (no closed forms), the references of polars-rank's DBN and
CCM.
"""

from __future__ import annotations

import copy
import math
from collections import defaultdict
from enum import Enum
from typing import Any

# ------------------------------------------------------------------ search sessions


class SearchResult:
    def __init__(self, search_result_id: Any, click: int) -> None:
        self.id = search_result_id
        if click not in [0, 1]:
            msg = f"Invalid click value: {click!r}"
            raise RuntimeError(msg)
        self.click = click


class SearchSession:
    def __init__(self, query: Any) -> None:
        self.query = query
        self.web_results: list[SearchResult] = []

    def get_clicks(self) -> list[int]:
        return [result.click for result in self.web_results]

    def get_last_click_rank(self) -> int:
        clicks = self.get_clicks()
        click_ranks = [r for r, click in enumerate(clicks) if click]
        return click_ranks[-1] if len(click_ranks) else len(clicks)


# ------------------------------------------------------------------ parameters


class ParamMLE:
    def __init__(self) -> None:
        self._numerator: float = 1
        self._denominator: float = 2

    def value(self) -> float:
        return self._numerator / float(self._denominator)


class ParamEM:
    PROB_MIN = 0.000001

    def __init__(self) -> None:
        self._numerator: float = 1
        self._denominator: float = 2

    def value(self) -> float:
        return min(self._numerator / float(self._denominator), 1 - self.PROB_MIN)


class ParamStatic:
    def __init__(self, param: float = 0) -> None:
        self.param = param

    def value(self) -> float:
        return self.param

    def update(self, *args: Any) -> None:
        pass


class QueryDocumentParamContainer:
    def __init__(self, param_class: Any) -> None:
        self._container: Any = defaultdict(lambda: defaultdict(param_class))

    def get(self, query: Any, search_result: Any) -> Any:
        return self._container[query][search_result]

    def get_for_session_at_rank(self, search_session: SearchSession, rank: int) -> Any:
        return self.get(search_session.query, search_session.web_results[rank].id)


class RankParamContainer:
    def __init__(self, param_class: Any, max_rank: int = 10) -> None:
        self._container = [param_class() for _ in range(max_rank)]

    def get(self, rank: int) -> Any:
        return self._container[rank]

    def get_for_session_at_rank(self, search_session: SearchSession, rank: int) -> Any:
        return self.get(rank)


class RankPrevClickParamContainer:
    def __init__(self, param_class: Any, max_rank: int = 10) -> None:
        self._container = [[param_class() for _ in range(max_rank)] for _ in range(max_rank)]

    def get(self, rank: int, rank_prev_click: int) -> Any:
        return self._container[rank][rank_prev_click]

    def get_for_session_at_rank(self, search_session: SearchSession, rank: int) -> Any:
        return self.get(rank, self._get_prev_clicked_rank(search_session, rank))

    @staticmethod
    def _get_prev_clicked_rank(search_session: SearchSession, rank: int) -> int:
        prev_clicks = [r for r, click in enumerate(search_session.get_clicks()[:rank]) if click]
        return prev_clicks[-1] if len(prev_clicks) else len(search_session.web_results) - 1


class SingleParamContainer:
    def __init__(self, param_class: Any) -> None:
        self._container = param_class()

    def get(self) -> Any:
        return self._container

    def get_for_session_at_rank(self, search_session: SearchSession, rank: int) -> Any:
        return self.get()


# ------------------------------------------------------------------ models and inference


class ClickModel:
    param_names: Any
    params: dict[Any, Any]

    def train(self, search_sessions: list[SearchSession]) -> None:
        self._inference.infer_params(self, search_sessions)  # type: ignore[attr-defined]

    def get_session_params(self, search_session: SearchSession) -> list[dict[Any, Any]]:
        session_params = []
        for rank, _ in enumerate(search_session.web_results):
            session_params.append({name: container.get_for_session_at_rank(search_session, rank)
                                   for name, container in self.params.items()})
        return session_params


class MLEInference:
    def infer_params(self, click_model: ClickModel, search_sessions: list[SearchSession]) -> None:
        for search_session in search_sessions:
            session_params = click_model.get_session_params(search_session)
            for rank, _ in enumerate(search_session.web_results):
                for _, param in session_params[rank].items():
                    param.update(search_session, rank)


class EMInference:
    def __init__(self, iter_num: int = 50) -> None:
        self.iter_num = iter_num

    def infer_params(self, click_model: ClickModel, search_sessions: list[SearchSession]) -> None:
        orig_click_model = copy.deepcopy(click_model)
        for _ in range(self.iter_num):
            new_click_model = copy.deepcopy(orig_click_model)
            for search_session in search_sessions:
                current = click_model.get_session_params(search_session)
                new = new_click_model.get_session_params(search_session)
                for rank, _ in enumerate(search_session.web_results):
                    for _, param in new[rank].items():
                        param.update(search_session, rank, current)
            click_model.params = new_click_model.params


class PBM(ClickModel):
    param_names = Enum("PBMParamNames", "attr exam")

    def __init__(self, iter_num: int = 50) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(PBMAttrEM),
                       self.param_names.exam: RankParamContainer(PBMExamEM)}
        self._inference = EMInference(iter_num)

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        click_probs = self.get_full_click_probs(search_session)
        for rank, result in enumerate(search_session.web_results):
            if not result.click:
                click_probs[rank] = 1 - click_probs[rank]
        return click_probs

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        return [p[self.param_names.attr].value() * p[self.param_names.exam].value()
                for p in self.get_session_params(search_session)]


class PBMAttrEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        attr = session_params[rank][PBM.param_names.attr].value()
        exam = session_params[rank][PBM.param_names.exam].value()
        if search_session.web_results[rank].click:
            self._numerator += 1
        else:
            self._numerator += (1 - exam) * attr / (1 - exam * attr)
        self._denominator += 1


class PBMExamEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        attr = session_params[rank][PBM.param_names.attr].value()
        exam = session_params[rank][PBM.param_names.exam].value()
        if search_session.web_results[rank].click:
            self._numerator += 1
        else:
            self._numerator += (1 - attr) * exam / (1 - exam * attr)
        self._denominator += 1


class CM(ClickModel):
    PROB_MIN = 0.000001
    param_names = Enum("CMParamNames", "attr")

    def __init__(self) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(CMAttrMLE)}
        self._inference = MLEInference()

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        click_ranks = [rank for rank, click in enumerate(search_session.get_clicks()) if click]
        first_click_rank = click_ranks[0] if len(click_ranks) else len(search_session.web_results)
        click_probs = self.get_full_click_probs(search_session)
        for rank, result in enumerate(search_session.web_results):
            if rank <= first_click_rank:
                if not result.click:
                    click_probs[rank] = 1 - click_probs[rank]
            else:
                click_probs[rank] = self.PROB_MIN
        return click_probs

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        session_params = self.get_session_params(search_session)
        click_probs, exam = [], 1.0
        for rank, _ in enumerate(search_session.web_results):
            attr = session_params[rank][self.param_names.attr].value()
            click_probs.append(attr * exam)
            exam *= 1 - attr
        return click_probs


class CMAttrMLE(ParamMLE):
    def update(self, search_session: SearchSession, rank: int) -> None:
        if not any(search_session.get_clicks()[:rank]):
            self._numerator += search_session.web_results[rank].click
            self._denominator += 1


class DCM(ClickModel):
    param_names = Enum("DCMParamNames", "attr cont")

    def __init__(self) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(DCMAttrMLE),
                       self.param_names.cont: RankParamContainer(DCMContMLE)}
        self._inference = MLEInference()

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        exam, click_probs = 1.0, []
        for p in self.get_session_params(search_session):
            attr, cont = p[self.param_names.attr].value(), p[self.param_names.cont].value()
            click_probs.append(attr * exam)
            exam *= cont * attr + (1 - attr)
        return click_probs

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        session_params = self.get_session_params(search_session)
        exam, click_probs = 1.0, []
        for rank, result in enumerate(search_session.web_results):
            attr = session_params[rank][self.param_names.attr].value()
            cont = session_params[rank][self.param_names.cont].value()
            if result.click:
                click_prob = attr * exam
                exam = cont
            else:
                click_prob = 1 - attr * exam
                exam *= (1 - attr) / click_prob
            click_probs.append(click_prob)
        return click_probs


class DCMAttrMLE(ParamMLE):
    def update(self, search_session: SearchSession, rank: int) -> None:
        if rank <= search_session.get_last_click_rank():
            if search_session.web_results[rank].click:
                self._numerator += 1
            self._denominator += 1


class DCMContMLE(ParamMLE):
    def update(self, search_session: SearchSession, rank: int) -> None:
        if search_session.web_results[rank].click:
            if rank != search_session.get_last_click_rank():
                self._numerator += 1
            self._denominator += 1


class UBM(ClickModel):
    param_names = Enum("UBMParamNames", "attr exam")

    def __init__(self, iter_num: int = 50) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(UBMAttrEM),
                       self.param_names.exam: RankPrevClickParamContainer(UBMExamEM)}
        self._inference = EMInference(iter_num)

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        session_params = self.get_session_params(search_session)
        click_probs = []
        for rank, result in enumerate(search_session.web_results):
            attr = session_params[rank][self.param_names.attr].value()
            exam = session_params[rank][self.param_names.exam].value()
            click_probs.append(attr * exam if result.click else 1 - attr * exam)
        return click_probs

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        click_probs: list[float] = []
        for rank, _ in enumerate(search_session.web_results):
            click_prob = 0.0
            for rank_prev_click in range(-1, rank):
                no_click_between = 1.0
                for rank_between in range(rank_prev_click + 1, rank):
                    no_click_between *= 1 - self._get_click_prob(search_session, rank_between,
                                                                 rank_prev_click)
                click_prob += (click_probs[rank_prev_click] if rank_prev_click >= 0 else 1) * \
                    no_click_between * self._get_click_prob(search_session, rank, rank_prev_click)
            click_probs.append(click_prob)
        return click_probs

    def _get_click_prob(self, search_session: SearchSession, rank: int, rank_prev_click: int,
                        ) -> float:
        attr = self.params[self.param_names.attr].get(
            search_session.query, search_session.web_results[rank].id).value()
        exam = self.params[self.param_names.exam].get(rank, rank_prev_click).value()
        return float(attr * exam)


class UBMAttrEM(PBMAttrEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        attr = session_params[rank][UBM.param_names.attr].value()
        exam = session_params[rank][UBM.param_names.exam].value()
        if search_session.web_results[rank].click:
            self._numerator += 1
        else:
            self._numerator += (1 - exam) * attr / (1 - exam * attr)
        self._denominator += 1


class UBMExamEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        attr = session_params[rank][UBM.param_names.attr].value()
        exam = session_params[rank][UBM.param_names.exam].value()
        if search_session.web_results[rank].click:
            self._numerator += 1
        else:
            self._numerator += (1 - attr) * exam / (1 - exam * attr)
        self._denominator += 1


class SDBN(ClickModel):
    param_names = Enum("SDBNParamNames", "attr sat")

    def __init__(self) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(SDBNAttrMLE),
                       self.param_names.sat: QueryDocumentParamContainer(SDBNSatMLE)}
        self._inference = MLEInference()

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        session_params = self.get_session_params(search_session)
        exam, click_probs = 1.0, []
        for rank, result in enumerate(search_session.web_results):
            attr = session_params[rank][self.param_names.attr].value()
            sat = session_params[rank][self.param_names.sat].value()
            if result.click:
                click_prob = attr * exam
                exam = 1 - sat
            else:
                click_prob = 1 - attr * exam
                exam *= (1 - attr) / click_prob
            click_probs.append(click_prob)
        return click_probs

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        exam, click_probs = 1.0, []
        for p in self.get_session_params(search_session):
            attr, sat = p[self.param_names.attr].value(), p[self.param_names.sat].value()
            click_probs.append(attr * exam)
            exam *= (1 - sat) * attr + (1 - attr)
        return click_probs


class SDBNAttrMLE(DCMAttrMLE):
    pass


class SDBNSatMLE(ParamMLE):
    def update(self, search_session: SearchSession, rank: int) -> None:
        if search_session.web_results[rank].click:
            if rank == search_session.get_last_click_rank():
                self._numerator += 1
            self._denominator += 1


class DBN(ClickModel):
    """PyClick's DBN as written (faults included: see ``BookDBN``)."""

    param_names = Enum("DBNParamNames", "attr sat cont exam car")

    def __init__(self, iter_num: int = 50) -> None:
        self.params = {self.param_names.attr: QueryDocumentParamContainer(DBNAttrEM),
                       self.param_names.sat: QueryDocumentParamContainer(DBNSatEM),
                       self.param_names.cont: SingleParamContainer(DBNContEM)}
        self._inference = EMInference(iter_num)

    def get_session_params(self, search_session: SearchSession) -> list[dict[Any, Any]]:
        session_params = super().get_session_params(search_session)
        session_exam = self._get_session_exam(search_session, session_params)
        session_car = self._get_session_clickafterrank(search_session, session_params)
        for rank, session_param in enumerate(session_params):
            session_param[self.param_names.exam] = ParamStatic(session_exam[rank])
            session_param[self.param_names.car] = ParamStatic(session_car[rank])
        return session_params

    def get_full_click_probs(self, search_session: SearchSession) -> list[float]:
        return [p[self.param_names.attr].value() * p[self.param_names.exam].value()
                for p in self.get_session_params(search_session)]

    def get_conditional_click_probs(self, search_session: SearchSession) -> list[float]:
        session_params = self.get_session_params(search_session)
        return self._get_tail_clicks(search_session, 0, session_params)[0]

    def _get_session_exam(self, search_session: SearchSession, session_params: Any,
                          ) -> list[float]:
        session_exam = [1.0]
        for rank, p in enumerate(session_params):
            attr, sat = p[self.param_names.attr].value(), p[self.param_names.sat].value()
            cont = p[self.param_names.cont].value()
            session_exam.append(session_exam[rank] * cont * ((1 - sat) * attr + (1 - attr)))
        return session_exam

    @classmethod
    def _get_tail_clicks(cls, search_session: SearchSession, start_rank: int,
                         session_params: Any) -> tuple[list[float], list[float]]:
        exam = 1.0
        click_probs, exam_probs = [], [exam]
        for rank, result in enumerate(search_session.web_results[start_rank:]):
            # PyClick's: ``rank`` counts from start_rank, yet indexes session_params
            attr = session_params[rank][cls.param_names.attr].value()
            sat = session_params[rank][cls.param_names.sat].value()
            cont = session_params[rank][cls.param_names.cont].value()
            if result.click:
                click_prob = attr * exam
                exam = cont * (1 - sat)
            else:
                click_prob = 1 - attr * exam
                exam *= cont * (1 - attr) / click_prob
            click_probs.append(click_prob)
            exam_probs.append(exam)
        return click_probs, exam_probs

    @classmethod
    def _get_continuation_factor(cls, search_session: SearchSession, rank: int,
                                 session_params: Any) -> Any:
        click = search_session.web_results[rank].click
        attr = session_params[rank][cls.param_names.attr].value()
        sat = session_params[rank][cls.param_names.sat].value()
        cont = session_params[rank][cls.param_names.cont].value()

        def factor(x: int, y: int, z: int) -> float:
            log_prob = 0.0
            if not click:
                if y:
                    return 0.0
                log_prob += math.log(1 - attr)
                if x:
                    log_prob += math.log(cont if z else (1 - cont))
                elif z:
                    return 0.0
            else:
                if not x:
                    return 0.0
                log_prob += math.log(attr)
                if not y:
                    log_prob += math.log(1 - sat)
                    log_prob += math.log(cont if z else (1 - cont))
                else:
                    if z:
                        return 0.0
                    log_prob += math.log(sat)
            if not z:
                if search_session.get_last_click_rank() >= rank + 1:
                    return 0.0
            elif rank + 1 < len(search_session.web_results):
                log_prob += sum(math.log(p) for p in cls._get_tail_clicks(
                    search_session, rank + 1, session_params)[0])
            exam = cls._get_tail_clicks(search_session, 0, session_params)[1][rank]
            log_prob += math.log(exam if x else (1 - exam))
            return math.exp(log_prob)
        return factor

    def _get_session_clickafterrank(self, search_session: SearchSession, session_params: Any,
                                    ) -> list[float]:
        car_list = [0.0] * (len(search_session.web_results) + 1)
        for rank in range(len(search_session.web_results) - 1, -1, -1):
            attr = session_params[rank][self.param_names.attr].value()
            cont = session_params[rank][self.param_names.cont].value()
            car_list[rank] = attr + (1 - attr) * cont * car_list[rank + 1]
        return car_list


class DBNAttrEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        if search_session.web_results[rank].click:
            self._numerator += 1
        elif rank >= search_session.get_last_click_rank():
            attr = session_params[rank][DBN.param_names.attr].value()
            exam = session_params[rank][DBN.param_names.exam].value()
            car = session_params[rank][DBN.param_names.car].value()
            self._numerator += (1 - exam) * attr / (1 - exam * car)
        self._denominator += 1


class DBNSatEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        if search_session.web_results[rank].click:
            if rank == search_session.get_last_click_rank():
                sat = session_params[rank][DBN.param_names.sat].value()
                cont = session_params[rank][DBN.param_names.cont].value()
                car = session_params[rank + 1][DBN.param_names.car].value() \
                    if rank < len(search_session.web_results) - 1 else 0
                self._numerator += sat / (1 - (1 - sat) * cont * car)
            self._denominator += 1


class DBNContEM(ParamEM):
    def update(self, search_session: SearchSession, rank: int, session_params: Any) -> None:
        factor = DBN._get_continuation_factor(search_session, rank, session_params)
        total = sum(factor(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1))

        def exam_prob(z: int) -> float:
            return factor(1, 0, z) / total
        self._numerator += exam_prob(1)
        self._denominator += sum(exam_prob(x) for x in [0, 1])


# ------------------------------------------------------------------ evaluation (Evaluation.py)


def log_likelihood(click_model: Any, search_sessions: list[SearchSession]) -> float:
    """PyClick's ``LogLikelihood.evaluate``: mean over sessions of the mean over ranks."""
    loglikelihood = 0.0
    for session in search_sessions:
        log_click_probs = [math.log(p) for p in click_model.get_conditional_click_probs(session)]
        loglikelihood += sum(log_click_probs) / len(log_click_probs)
    return loglikelihood / len(search_sessions)


def perplexity(click_model: Any, search_sessions: list[SearchSession], rank_max: int = 10,
               ) -> tuple[float, list[float]]:
    """PyClick's ``Perplexity.evaluate``: (overall, per rank) over RANK_MAX ranks."""
    at_rank = [0.0] * rank_max
    for session in search_sessions:
        for rank, click_prob in enumerate(click_model.get_full_click_probs(session)):
            p = click_prob if session.web_results[rank].click else 1 - click_prob
            if p > 0:
                at_rank[rank] += math.log(p, 2)
    at_rank = [2 ** (-x / len(search_sessions)) for x in at_rank]
    return sum(at_rank) / len(at_rank), at_rank


# ------------------------------------------------------------------ DBN from the book


class BookDBN:
    """DBN with EM on the exact posteriors (not PyClick's), a loop over sessions and ranks.

    Chuklin, Markov & de Rijke (2015), sec. 2.8 (the model) and 3.2 (EM); Chapelle &
    Zhang (2009). Starts at 0.5 with PyClick's counts (1 / 2) and ceiling 1 - 1e-6.
    With l the last click (0-based; -1 without), eps_r = P(E_r = 1 | C_<r) and
    X_r = P(C_>=r = 1 | E_r = 1):

    - alpha: a click counts 1; a non-click after l counts (1 - eps_r) alpha / (1 - eps_r X_r);
      a non-click before l counts 0.
    - sigma, over clicks: the last click counts sigma / (1 - (1 - sigma) gamma X_{l+1}).
    - gamma: sum of P(E_r=1, S_r=0, E_{r+1}=1 | C) over sum of P(E_r=1, S_r=0 | C), over
      the transitions r -> r + 1 inside the list (r < n - 1).
    """

    PROB_MIN = 0.000001

    def __init__(self, iter_num: int) -> None:
        self.iter_num = iter_num
        self.attr: dict[tuple[Any, Any], float] = {}
        self.sat: dict[tuple[Any, Any], float] = {}
        self.gamma = 0.5

    def _ratio(self, num: float, den: float) -> float:
        return min((1 + num) / (2 + den), 1 - self.PROB_MIN)

    def train(self, sessions: list[SearchSession]) -> None:
        for _ in range(self.iter_num):
            a_num: dict[Any, float] = defaultdict(float)
            a_den: dict[Any, float] = defaultdict(float)
            s_num: dict[Any, float] = defaultdict(float)
            s_den: dict[Any, float] = defaultdict(float)
            g_num = g_den = 0.0
            g = self.gamma
            for session in sessions:
                n = len(session.web_results)
                keys = [(session.query, r.id) for r in session.web_results]
                a = [self.attr.get(k, 0.5) for k in keys]
                s = [self.sat.get(k, 0.5) for k in keys]
                c = session.get_clicks()
                last = max((r for r in range(n) if c[r]), default=-1)
                x = [0.0] * (n + 1)
                for r in range(n - 1, -1, -1):
                    x[r] = a[r] + (1 - a[r]) * g * x[r + 1]
                eps, e = [], 1.0
                for r in range(n):
                    eps.append(e)
                    e = g * (1 - s[r]) if c[r] else e * g * (1 - a[r]) / (1 - e * a[r])
                for r in range(n):
                    a_den[keys[r]] += 1
                    if c[r]:
                        a_num[keys[r]] += 1
                        s_den[keys[r]] += 1
                    elif r > last:
                        a_num[keys[r]] += (1 - eps[r]) * a[r] / (1 - eps[r] * x[r])
                    if c[r] and r == last:
                        z = 1 - (1 - s[r]) * g * x[r + 1]
                        s_num[keys[r]] += s[r] / z
                    if r == n - 1:
                        continue
                    if r < last:
                        num, den = 1.0, 1.0
                    elif r == last:
                        z = 1 - (1 - s[r]) * g * x[r + 1]
                        num = (1 - s[r]) * g * (1 - x[r + 1]) / z
                        den = (1 - s[r]) * (1 - g * x[r + 1]) / z
                    else:
                        d = 1 - eps[r] * x[r]
                        num = eps[r] * (1 - a[r]) * g * (1 - x[r + 1]) / d
                        den = eps[r] * (1 - x[r]) / d
                    g_num += num
                    g_den += den
            self.attr = {k: self._ratio(a_num[k], a_den[k]) for k in a_den}
            self.sat = {k: self._ratio(s_num[k], s_den[k]) for k in s_den}
            self.gamma = self._ratio(g_num, g_den)


class BookCCM:
    """CCM with EM on the exact posteriors (not PyClick's), a loop over sessions and ranks.

    Chuklin, Markov & de Rijke (2015), sec. 2.7 (the model: after no click the user goes
    on with tau_1; after a click on a result that is relevant with probability alpha,
    with tau_3, else tau_2); Guo et al. (2009). alpha's statistics are the posterior of
    A_r on every row and of the relevance S_r on every clicked row; the taus' are
    P(E_r+1 = 1, branch | C) over P(E_r = 1, branch | C), for r < n - 1. Start 0.5 with
    PyClick's counts (1 / 2) and ceiling 1 - 1e-6. eps_r = P(E_r = 1 | C_<r),
    X_r = P(C_>=r = 1 | E_r = 1) = a_r + (1 - a_r) tau_1 X_{r+1}.
    """

    PROB_MIN = 0.000001

    def __init__(self, iter_num: int) -> None:
        self.iter_num = iter_num
        self.attr: dict[tuple[Any, Any], float] = {}
        self.tau = [0.5, 0.5, 0.5]

    def _ratio(self, num: float, den: float) -> float:
        return min((1 + num) / (2 + den), 1 - self.PROB_MIN)

    def train(self, sessions: list[SearchSession]) -> None:
        for _ in range(self.iter_num):
            a_num: dict[Any, float] = defaultdict(float)
            a_den: dict[Any, float] = defaultdict(float)
            t_num, t_den = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
            t1, t2, t3 = self.tau
            for session in sessions:
                n = len(session.web_results)
                keys = [(session.query, r.id) for r in session.web_results]
                a = [self.attr.get(k, 0.5) for k in keys]
                c = session.get_clicks()
                last = max((r for r in range(n) if c[r]), default=-1)
                x = [0.0] * (n + 1)
                for r in range(n - 1, -1, -1):
                    x[r] = a[r] + (1 - a[r]) * t1 * x[r + 1]
                eps, e = [], 1.0
                for r in range(n):
                    eps.append(e)
                    if c[r]:
                        e = t2 * (1 - a[r]) + t3 * a[r]
                    else:
                        e = e * t1 * (1 - a[r]) / (1 - e * a[r])
                for r in range(n):
                    k = keys[r]
                    a_den[k] += 1
                    inside = r < n - 1
                    if not c[r]:
                        if r > last:
                            d = 1 - eps[r] * x[r]
                            a_num[k] += (1 - eps[r]) * a[r] / d
                            if inside:
                                t_num[0] += eps[r] * (1 - a[r]) * t1 * (1 - x[r + 1]) / d
                                t_den[0] += eps[r] * (1 - x[r]) / d
                        elif inside:
                            t_num[0] += 1
                            t_den[0] += 1
                        continue
                    a_num[k] += 1
                    a_den[k] += 1
                    if r < last:
                        rho = a[r] * t3 / (a[r] * t3 + (1 - a[r]) * t2)
                        a_num[k] += rho
                        t_num[2] += rho
                        t_den[2] += rho
                        t_num[1] += 1 - rho
                        t_den[1] += 1 - rho
                    else:
                        xn = x[r + 1]
                        z = a[r] * (1 - t3 * xn) + (1 - a[r]) * (1 - t2 * xn)
                        a_num[k] += a[r] * (1 - t3 * xn) / z
                        if inside:
                            t_num[2] += a[r] * t3 * (1 - xn) / z
                            t_den[2] += a[r] * (1 - t3 * xn) / z
                            t_num[1] += (1 - a[r]) * t2 * (1 - xn) / z
                            t_den[1] += (1 - a[r]) * (1 - t2 * xn) / z
            self.attr = {k: self._ratio(a_num[k], a_den[k]) for k in a_den}
            self.tau = [self._ratio(t_num[i], t_den[i]) for i in range(3)]


# ------------------------------------------------------------------ pyClickModels' DBN


class PyClickModelsDBN:
    """pyClickModels' DBN, transcribed (pure Python, double precision), switches for the book.

    WillianFuks/pyClickModels, commit e0515d8e07310d4b6369f2768647a3808b4904dc (MIT
    licence, (C) Willian Fuks), ``pyClickModels/DBN.pyx``: ``DBNModel.fit`` (lines
    1040-1124: each iteration reads the input line by line, a line being one query's
    sessions), ``update_tmp_params`` (1126-1183), ``build_e_r_vector`` (317-382),
    ``build_X_r_vector`` (384-435), ``build_e_r_vector_given_CP`` (437-515),
    ``compute_cp_p`` / ``build_CP_vector_given_e`` (517-644), ``get_last_r`` (646-681),
    ``update_tmp_alpha`` / ``update_tmp_sigma`` / ``update_tmp_gamma`` (683-915),
    ``Factor.compute_factor`` (85-140), ``compute_cr`` (241-315), the updates (917-990).
    Lines of the unpatched file (the patch keeps them).
    Every parameter starts at 0.5 (tests/fixtures/pyclickmodels_init.patch; pyClickModels
    draws them from ``rand()``); counts start at 1 / 2 as ours. Ranks are 0-based.

    ``lines``: ``[(query, [[(doc, click, purchase), ...], ...]), ...]``, in input order.
    The four switches, each pyClickModels' by default, make it the book's DBN
    (``BookDBN``) when all are flipped, for a log without purchases:

    - ``exam="unconditional"``: the attractiveness update below the last click reads
      P(E_r = 1) before any click is seen (``build_e_r_vector``); ``"conditional"``:
      P(E_r = 1 | C_<r) (``build_e_r_vector_given_CP``, the book's).
    - ``gamma_factor="pyclickmodels"``: ``Factor.compute_factor`` (lines 107-129): an
      examined result not clicked weighs (1 - alpha)(1 - sigma), and a satisfied user
      goes on with gamma (1 - cr); ``"book"``: (1 - alpha), and a satisfied user stops.
    - ``last_transition=True``: gamma also counts a transition from the last rank (the
      tail factor is then 1: line 135); ``False``: transitions inside the list only.
    - ``gamma_per_query=True``: gamma's counts restart (1 / 2) at each input line and
      gamma is updated after it (lines 1101, 1123): the next line reads the new gamma and
      the fit ends with the last line's; ``False``: one count over the whole log per
      iteration, gamma updated at its end.
    """

    def __init__(self, iter_num: int = 30, *, exam: str = "unconditional",
                 gamma_factor: str = "pyclickmodels", last_transition: bool = True,
                 gamma_per_query: bool = True) -> None:
        self.iter_num = iter_num
        self.exam, self.gamma_factor = exam, gamma_factor
        self.last_transition, self.gamma_per_query = last_transition, gamma_per_query
        self.alpha: dict[tuple[Any, Any], float] = {}
        self.sigma: dict[tuple[Any, Any], float] = {}
        self.gamma = 0.5

    def train(self, lines: list[tuple[Any, list[list[tuple[Any, int, int]]]]]) -> None:
        cr: dict[Any, dict[Any, float]] = {}
        for _ in range(self.iter_num):
            tmp_gamma = [1.0, 2.0]
            for query, sessions in lines:
                if self.gamma_per_query:
                    tmp_gamma = [1.0, 2.0]
                tmp_alpha: dict[Any, list[float]] = {}
                tmp_sigma: dict[Any, list[float]] = {}
                if query not in cr:  # compute_cr: purchases / times shown, per document
                    seen: dict[Any, list[int]] = {}
                    for session in sessions:
                        for doc, _click, purchase in session:
                            seen.setdefault(doc, [0, 0])
                            seen[doc][0] += bool(purchase)
                            seen[doc][1] += 1
                    cr[query] = {d: p / n for d, (p, n) in seen.items()}
                for session in sessions:
                    self._session(query, session, cr[query], tmp_alpha, tmp_sigma, tmp_gamma)
                for doc, (num, den) in tmp_alpha.items():
                    self.alpha[(query, doc)] = num / den
                for doc, (num, den) in tmp_sigma.items():
                    self.sigma[(query, doc)] = num / den
                if self.gamma_per_query:
                    self.gamma = tmp_gamma[0] / tmp_gamma[1]
            if not self.gamma_per_query:
                self.gamma = tmp_gamma[0] / tmp_gamma[1]

    def _session(self, query: Any, session: list[tuple[Any, int, int]], cr: dict[Any, float],
                 tmp_alpha: dict[Any, list[float]], tmp_sigma: dict[Any, list[float]],
                 tmp_gamma: list[float]) -> None:
        n = len(session)
        docs = [d for d, _, _ in session]
        c = [bool(x) for _, x, _ in session]
        p = [bool(x) for _, _, x in session]
        a = [self.alpha.setdefault((query, d), 0.5) for d in docs]  # get_param creates
        s = [self.sigma.setdefault((query, d), 0.5) for d in docs]
        g = self.gamma
        rate = [cr[d] for d in docs]
        e = [1.0] * (n + 1)  # build_e_r_vector: P(E_r = 1), no click seen
        for r in range(1, n + 1):
            e[r] = e[r - 1] * g * ((1 - s[r - 1]) * (1 - rate[r - 1]) * a[r - 1] + (1 - a[r - 1]))
        x = [0.0] * (n + 1)  # build_X_r_vector
        for r in range(n - 1, -1, -1):
            x[r] = a[r] + (1 - a[r]) * g * x[r + 1]

        def given_cp(idx: int) -> list[float]:  # build_e_r_vector_given_CP
            v = [0.0] * (n + 1 - idx)
            v[0] = 1.0
            for r in range(idx, n):
                if p[r]:
                    return v
                if c[r]:
                    v[r + 1 - idx] = (1 - s[r]) * g
                else:
                    v[r + 1 - idx] = g * (1 - a[r]) * v[r - idx] / (1 - a[r] * v[r - idx])
            return v

        def cp_p(idx: int, v: list[float]) -> float:  # compute_cp_p
            out = 1.0
            for r in range(idx, n):
                if p[r]:
                    out *= rate[r] * a[r] * v[r - idx]
                elif c[r]:
                    out *= (1 - rate[r]) * a[r] * v[r - idx]
                else:
                    out *= 1 - a[r] * v[r - idx]
            return out

        eps = given_cp(0)
        cp = [cp_p(r + 1, given_cp(r + 1)) for r in range(n - 1)]  # build_CP_vector_given_e
        last = max((r for r in range(n) if c[r]), default=0)  # get_last_r: 0 if no click
        exam = e if self.exam == "unconditional" else eps
        for r in range(n):
            num_den = tmp_alpha.setdefault(docs[r], [1.0, 2.0])  # update_tmp_alpha
            if c[r]:
                num_den[0] += 1
            elif r > last:
                num_den[0] += (1 - exam[r]) * a[r] / (1 - exam[r] * x[r])
            num_den[1] += 1
            num_den = tmp_sigma.setdefault(docs[r], [1.0, 2.0])  # update_tmp_sigma
            if c[r] and not p[r]:
                if r == last:
                    num_den[0] += s[r] / (1 - x[r + 1] * (1 - s[r]) * g)
                num_den[1] += 1
            if r == n - 1 and not self.last_transition:
                continue

            def factor(xx: int, y: int, z: int, r: int = r) -> float:  # Factor.compute_factor
                result = 1.0
                if not xx:
                    if z or y or c[r]:
                        return 0.0
                elif p[r]:
                    if not y or z:
                        return 0.0
                    result *= a[r] * rate[r] * (1 - g) * s[r]
                elif not c[r]:
                    if y:
                        return 0.0
                    result *= (1 - a[r]) * (1 - s[r] if self.gamma_factor != "book" else 1.0)
                    result *= g if z else 1 - g
                elif self.gamma_factor == "book":
                    result *= a[r] * ((1 - s[r]) * (g if z else 1 - g) if not y else
                                      (0.0 if z else s[r]))
                else:
                    result *= a[r] * (1 - s[r] if not y else s[r])
                    result *= (g if z else 1 - g) * (1 - rate[r])
                if not z:
                    if last >= r + 1:
                        return 0.0
                elif r < len(cp):
                    result *= cp[r]
                return result * (eps[r] if xx else 1 - eps[r])

            total = sum(factor(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1))
            ess_0 = factor(1, 0, 0) / total if total else 0.0
            ess_1 = factor(1, 0, 1) / total if total else 0.0
            tmp_gamma[0] += ess_1
            tmp_gamma[1] += ess_0 + ess_1
