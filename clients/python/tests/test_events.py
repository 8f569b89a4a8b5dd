"""subscribe() as an iterator: real events from their causes, a gap for a reader that falls
behind, and the stream's end."""

from __future__ import annotations

from typing import List

import pytest

import tuios
from tuios import Event, Gap
from tuios.pytest_plugin import TuiosSession


def test_iterator_sees_window_created_and_output(tuios_session: TuiosSession) -> None:
    with tuios_session.subscribe(types=["window-created", "output", "window-exit"]) as events:
        assert events.seq > 0
        created = tuios_session.new_window(command=["/bin/sh", "-c", "read go; echo went; exit 4"])
        wid = created["window_id"]
        ev = events.expect(lambda e: e.type == "window-created", timeout=10, what="window-created")
        assert isinstance(ev, Event) and not ev.is_gap
        assert (ev.window, ev.session) == (wid, tuios_session.name)
        assert ev.seq > events.seq and ev.time > 0
        tuios_session.send_text("go\n", window=wid)
        out = events.expect(
            lambda e: e.type == "output" and e.window == wid, timeout=10, what="output"
        )
        assert out.get("bytes", 0) > 0
        exited = events.expect(
            lambda e: e.type == "window-exit" and e.window == wid, timeout=10, what="window-exit"
        )
        assert exited["exit_code"] == 4
        assert events.gaps == 0 and events.dropped == 0


def test_plain_for_loop_and_unsubscribe(tuios_session: TuiosSession) -> None:
    events = tuios_session.subscribe(types=["window-created"])
    tuios_session.new_window(name="one", focus=False)
    tuios_session.new_window(name="two", focus=False)
    seen = []
    for ev in events:
        seen.append(ev)
        if len(seen) == 2:
            break
    assert [e.type for e in seen] == ["window-created"] * 2
    assert seen[0].seq < seen[1].seq
    ack = events.unsubscribe()
    assert ack["type"] == "unsubscribed"
    assert list(events) == []  # the stream has ended
    assert events.closed


def test_unsubscribe_without_a_stream_is_the_daemons_invalid_request(
    tuios_session: TuiosSession,
) -> None:
    with pytest.raises(tuios.InvalidRequest) as info:
        tuios_session.client.unsubscribe()
    assert info.value.hint is not None and info.value.hint.verb == "subscribe"


def test_client_unsubscribe_ends_its_streams(tuios_session: TuiosSession) -> None:
    a = tuios_session.subscribe(types=["window-created"])
    b = tuios_session.subscribe(types=["window-closed"])
    assert tuios_session.client.unsubscribe()["type"] == "unsubscribed"
    assert a.closed and b.closed


def test_bad_event_type_is_refused_with_a_hint(tuios_session: TuiosSession) -> None:
    with pytest.raises(tuios.InvalidParams) as info:
        tuios_session.subscribe(types=["window-create"])
    assert info.value.hint is not None and info.value.hint.did_you_mean == "window-created"


def test_expect_times_out_with_a_typed_error(tuios_session: TuiosSession) -> None:
    with tuios_session.subscribe(types=["bell"]) as events:
        with pytest.raises(tuios.StreamTimeout) as info:
            events.expect(lambda e: True, timeout=0.2, what="a bell")
        assert isinstance(info.value, tuios.Timeout)
        assert info.value.code == "stream_timeout"


def test_a_reader_that_falls_behind_gets_a_gap(tuios_session: TuiosSession) -> None:
    """A stream with a queue of 2 that nobody reads while a window floods: a few hundred event
    lines fill its socket, the rest overflow the queue, and reading resumes with one Gap that
    counts them. Every published event is either delivered or counted in a gap."""
    created = tuios_session.new_window(
        command=["/bin/sh", "-c", "read go; while :; do printf .; done"], focus=False
    )
    wid = created["window_id"]
    kinds = ["output", "window-closed"]
    slow = tuios_session.subscribe(window=wid, types=kinds, queue=2)
    fast = tuios_session.subscribe(window=wid, types=kinds, queue=1_000_000)
    tuios_session.send_text("go\n", window=wid)

    published = 0
    while published < 3000:
        ev = fast.next_event(timeout=30)
        assert ev is not None
        published += ev.dropped if isinstance(ev, Gap) else 1
    tuios_session.client.close_window(session=tuios_session.name, window=wid)
    while True:
        ev = fast.next_event(timeout=30)
        assert ev is not None
        published += ev.dropped if isinstance(ev, Gap) else 1
        if ev.type == "window-closed":
            break

    delivered: List[Event] = []
    gaps: List[Gap] = []
    while len(delivered) + sum(g.dropped for g in gaps) < published:
        ev = slow.next_event(timeout=30)
        assert ev is not None, "the slow stream ended early"
        if isinstance(ev, Gap):
            gaps.append(ev)
        else:
            delivered.append(ev)
    assert gaps, "a stalled reader with queue 2 saw no gap"
    assert all(g.is_gap and g.type == "gap" and g.dropped > 0 and g.seq == 0 for g in gaps)
    assert (slow.gaps, slow.dropped) == (len(gaps), sum(g.dropped for g in gaps))
    assert len(delivered) + slow.dropped == published
    seqs = [e.seq for e in delivered]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # A full queue keeps what it holds and drops newer events, so the close may be in a gap.
    assert all(e.window == wid for e in delivered)
    slow.close()
    fast.close()
