"""Held-out gate metrics, temperature scaling and the clarification threshold η (on dev)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from app.domain.vocabulary import ACTIONS, Action
from workers.gate.batch import collate
from workers.gate.model import GateNet
from workers.gate.replay import IGNORE, GateSequence

CLARIFY = ACTIONS.index(Action.clarify)
Array = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Predictions:
    logits: Array  # (N, 6) over the events that carry a hypothesis
    authenticity: Array  # (N,) logits
    labels: npt.NDArray[np.int64]  # (N,)
    authentic: Array  # (N,) targets
    events: int  # all events, with or without a hypothesis (the clarification-rate base)


@torch.no_grad()
def predict(
    net: GateNet, sequences: Sequence[GateSequence], provenance: bool, batch_size: int = 128
) -> Predictions:
    net.eval()
    logits, auth, labels, authentic = [], [], [], []
    events = 0
    for start in range(0, len(sequences), batch_size):
        chunk = sequences[start : start + batch_size]
        batch = collate(chunk, provenance)
        states = net.states(batch.embeddings, batch.scalars, batch.dt_days, batch.lengths)
        action_logits, auth_logits = net.decide(states, batch.claims, batch.context, batch.scalars)
        mask = batch.labels != IGNORE  # (B, T)
        logits.append(action_logits[mask].double().numpy())
        auth.append(auth_logits[mask].double().numpy())
        labels.append(batch.labels[mask].numpy())
        authentic.append(batch.authentic[mask].double().numpy())
        events += int(batch.lengths.sum())
    return Predictions(
        np.concatenate(logits), np.concatenate(auth), np.concatenate(labels),
        np.concatenate(authentic), events,
    )


def softmax(logits: Array, temperature: float = 1.0) -> Array:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: Array = e / e.sum(axis=1, keepdims=True)
    return out


def nll(probs: Array, labels: npt.NDArray[np.int64]) -> float:
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(labels)), labels], 1e-12, None))))


def entropy(probs: Array) -> Array:
    out: Array = -(probs * np.log(np.clip(probs, 1e-12, None))).sum(axis=1)
    return out


def fit_temperature(p: Predictions) -> float:
    """The temperature minimizing dev NLL (grid, 0.25–8 log-spaced)."""
    grid = np.exp(np.linspace(math.log(0.25), math.log(8.0), 121))
    losses = [nll(softmax(p.logits, t), p.labels) for t in grid]
    return float(round(grid[int(np.argmin(losses))], 4))


def decisions(probs: Array, eta: float, clarify: bool = True) -> npt.NDArray[np.int64]:
    """Ask when the entropy exceeds η, else the most probable action (without clarification:
    the most probable of the five silent actions)."""
    if not clarify:
        silent = probs.copy()
        silent[:, CLARIFY] = -1.0
        return np.asarray(silent.argmax(axis=1), dtype=np.int64)
    out = np.asarray(probs.argmax(axis=1), dtype=np.int64)
    out[entropy(probs) > eta] = CLARIFY
    return out


def macro_f1(pred: npt.NDArray[np.int64], labels: npt.NDArray[np.int64]) -> float:
    scores = []
    for k in range(len(ACTIONS)):
        tp = int(np.sum((pred == k) & (labels == k)))
        fp = int(np.sum((pred == k) & (labels != k)))
        fn = int(np.sum((pred != k) & (labels == k)))
        if tp + fp + fn:
            scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores)) if scores else 0.0


# A question's answer settles the claim unless the user answers wrongly (the paper's ε: its
# D-PrefGuard answers are 92 % accurate).
ANSWER_ERROR = 0.08


def choose_eta(p: Predictions, temperature: float, max_rate: float,
               answer_error: float = ANSWER_ERROR) -> float:
    """The η whose decisions end right most often on dev, among those asking on at most
    `max_rate` of events: a silent decision is right when it is the labelled action, a question
    when the user's answer is (probability 1 − ε) — so the gate asks where its own best guess
    is less likely right than the user's answer, as long as the budget lasts. Ties: the
    higher η (fewer questions)."""
    probs = softmax(p.logits, temperature)
    h = entropy(probs)
    candidates = sorted({*np.quantile(h, np.linspace(0.0, 1.0, 201)).tolist(), math.log(6) + 1})
    best_eta, best_right = math.log(6) + 1, -1.0
    for eta in candidates:
        pred = decisions(probs, eta)
        asked = pred == CLARIFY
        if float(np.sum(asked)) / max(1, p.events) > max_rate:
            continue
        right = float(np.sum(pred[~asked] == p.labels[~asked])) + (1.0 - answer_error) * float(
            np.sum(asked))
        if right >= best_right - 1e-9:
            best_eta, best_right = float(eta), right
    return round(best_eta, 4)


def ece(probs: Array, labels: npt.NDArray[np.int64], bins: int = 15) -> float:
    confidence = probs.max(axis=1)
    correct = probs.argmax(axis=1) == labels
    edges = np.linspace(0.0, 1.0, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (confidence > lo) & (confidence <= hi)
        if inside.any():
            total += abs(float(confidence[inside].mean()) - float(correct[inside].mean())) * float(
                inside.mean()
            )
    return total


def auc(scores: Array, labels: Array) -> float:
    from workers.gate.injection import auc as rank_auc

    return rank_auc(scores.astype(np.float32), labels.astype(np.float32))


def report(
    p: Predictions, temperature: float, eta: float, clarify: bool = True
) -> dict[str, object]:
    """Per-class precision / recall / F1, accuracy, macro-F1, calibration, clarification rate,
    authenticity AUC."""
    probs = softmax(p.logits, temperature)
    pred = decisions(probs, eta, clarify)
    per_class: dict[str, dict[str, float]] = {}
    for k, action in enumerate(ACTIONS):
        tp = int(np.sum((pred == k) & (p.labels == k)))
        fp = int(np.sum((pred == k) & (p.labels != k)))
        fn = int(np.sum((pred != k) & (p.labels == k)))
        per_class[action.value] = {
            "support": int(np.sum(p.labels == k)),
            "precision": round(tp / max(1, tp + fp), 4),
            "recall": round(tp / max(1, tp + fn), 4),
            "f1": round(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn), 4),
        }
    has_target = p.authentic >= 0
    confusion = np.zeros((len(ACTIONS), len(ACTIONS)), dtype=np.int64)
    for truth, guess in zip(p.labels, pred, strict=True):
        confusion[truth, guess] += 1
    return {
        "hypotheses": len(p.labels),
        "events": p.events,
        "accuracy": round(float(np.mean(pred == p.labels)), 4),
        "macro_f1": round(macro_f1(pred, p.labels), 4),
        "nll": round(nll(probs, p.labels), 4),
        "ece": round(ece(probs, p.labels), 4),
        "clarify_rate_per_event": round(float(np.sum(pred == CLARIFY)) / max(1, p.events), 4),
        "authenticity_auc": round(auc(p.authenticity[has_target], p.authentic[has_target]), 4),
        "per_class": per_class,
        "confusion_rows_truth": confusion.tolist(),
    }
