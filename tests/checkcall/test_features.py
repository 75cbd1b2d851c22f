"""Trajectory features as the paper defines them (§2.3), and the triage score."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.checkcall.features import Op, trajectory, triage_score

T = datetime(2026, 11, 1, tzinfo=UTC)


def _ops(*names: str) -> list[Op]:
    return [Op(T + timedelta(seconds=i), name) for i, name in enumerate(names)]


class TestTrajectory:
    def test_recall_before_send_is_any_recall_before_the_last_send(self) -> None:
        # min(recall positions) < max(send positions), the released implementation.
        assert trajectory(_ops("send", "recall", "send"))["recall_before_send"]
        assert not trajectory(_ops("send", "recall"))["recall_before_send"]
        assert trajectory(_ops("send"))["send_without_recall"]

    def test_counts_bigrams_and_entry_point(self) -> None:
        f = trajectory(_ops("context", "recall", "recall", "draft", "send"))
        assert (f["recall_count"], f["context_count"], f["seq_len"]) == (2, 1, 5)
        assert f["max_recall_chain"] == 2
        assert (f["recall_then_recall"], f["recall_then_draft"], f["draft_then_send"]) == (1, 1, 1)
        assert f["first_op"] == "context"
        assert f["first_op_is_context"]
        assert f["context_before_send"]
        assert f["retrieval_before_send"]
        assert f["recall_to_send_ratio"] == 2.0

    def test_ops_are_ordered_by_time_not_by_list_order(self) -> None:
        ops = [Op(T + timedelta(seconds=5), "send"), Op(T, "recall")]
        assert trajectory(ops)["recall_before_send"]


class TestTriageScore:
    def test_ranks_but_stays_in_unit_interval(self) -> None:
        quiet = triage_score({})
        loud = triage_score(
            {"recall_before_send": True, "recipient_external": True, "tainted_values": 1}
        )
        assert 0.0 < quiet < loud < 1.0
