"""The evidence messages the app relays to its screens: none bubbles, and each copy is a fresh equal message."""

from __future__ import annotations

import pytest
from _tui_support import recorded_evidence

from advisor.tui import messages
from advisor.tui.messages import EvidenceNews

PROBE, BENCH = recorded_evidence()
assert PROBE is not None and BENCH is not None
NEWS = [
    messages.FastProbeDone(PROBE),
    messages.FastProbeFailed("no cpuinfo"),
    messages.ProbeDone(PROBE, cancelled=True),
    messages.ProbeFailed("crashed"),
    messages.BenchDone(BENCH),
    messages.BenchFailed("no framework"),
    messages.EvidenceRunEnded(3, cancelled=True),
]


def test_every_kind_of_news_is_listed_here() -> None:
    assert {type(m) for m in NEWS} == set(EvidenceNews.__subclasses__())


@pytest.mark.parametrize("news", NEWS, ids=lambda m: type(m).__name__)
def test_relayed_news_never_bubbles_back_to_the_app_and_copies_afresh(news: EvidenceNews) -> None:
    # A copy bubbling up from a screen would reach the app's handler, which relays it again: forever.
    assert type(news).bubble is False
    copy = news.copy()
    assert copy == news and copy is not news and type(copy) is type(news)
    assert copy.handler_name == news.handler_name and not copy._stop_propagation
