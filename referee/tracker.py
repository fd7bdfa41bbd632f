"""Follow one game from the table's observations and say what happened, turn by turn.

The tracker is the referee's state machine. It takes, frame by frame, what the camera saw
(vision/table.py: dice events, a settled board reading, the running side of the clock) and
emits events dated by the frame that shows each:

    awaiting the throw -> dice thrown -> roll read (or a 3-second count: throw void or count
    cancelled) -> moving (the board settles on partial plays) -> a complete legal outcome ->
    the mover presses the clock (or the opponent throws): the move is recorded, the turn
    passes.

A settled board that no legal outcome or partial play explains, read with confidence,
raises an `illegal_move` flag at once; the opponent decides (5.4.47): the board restored and
a legal move played is a `correction`; the opponent throwing on it is `move_accepted`
(5.5.1), and the game goes on from the position as it stands. A throw while the mover's
clock still runs is a `premature_throw` (5.4.18): counted when the thrower then reaches for
his checkers, not counted when the dice are picked up first. A start position off the
rules' start is `wrong_start` (5.4.43-5.4.45). Judging goes through referee/judge.py, which
flags only what the frames show with confidence: a misread is never a flag. A die that moves
after the roll was read (a cocked die read as flat falls) changes the roll while the board is
as it was (`roll_changed`); later it is only on record (`dice_moved`).

A turn whose last board was not seen settled (an arm over the board when the opponent
threw) stays open until the next clear view, which is judged for it first.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from referee.judge import (
    BoardBelief,
    Explanation,
    differs,
    explain,
    restore_count,
    same_placement,
)
from referee.position import CHECKERS_PER_SIDE, Position, Side, Variant
from referee.rules import Dice, Outcome, Rules
from vision.dice.stream import DiceEvent, Kind
from vision.table import Observation

MIN_ROLL_CONFIDENCE = 0.8  # below it, a board that another roll explains re-reads the roll


class Stage(enum.Enum):
    THROWN = "dice thrown"
    ROLLED = "roll read, moving"
    MOVED = "a legal move stands"
    FLAGGED = "an illegal move stands"


@dataclass(frozen=True)
class RefereeEvent:
    """One line of the referee's log: what happened, and the frame that shows it."""

    event: str
    frame: int
    time: float
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "frame": self.frame, "time": round(self.time, 3),
                **self.fields}


@dataclass
class Turn:
    """One player's turn, from his throw until the board shows what he did."""

    mover: Side | None
    stage: Stage = Stage.THROWN
    dice: Dice | None = None
    roll_confidence: float = 1.0
    candidate: tuple[Outcome, int, float] | None = None  # a legal outcome seen settled
    flagged: Position | None = None  # the illegal position standing
    touched: tuple[int, float] | None = None  # the board's first motion after the flag
    pressed: bool = False  # the mover pressed his clock: he has finished
    moved: bool = False  # the board showed a change since the roll
    handled: bool = False  # something moved over the board since the roll
    rolled_at: tuple[int, float] | None = None  # the roll's frame and time


@dataclass
class _Premature:
    thrower: Side
    roll: Dice | None = None
    pressed: bool = False  # the opponent has pressed his clock since
    picked_up: tuple[int, float] | None = None  # dice gone while the board was not yet read


@dataclass
class GameTracker:
    """Feed `update` every observation in order; it returns the events they complete."""

    rules: Rules
    variant: Variant
    position: Position = field(init=False)
    mover: Side | None = None  # who throws next, or throws now
    turn: Turn | None = None
    closing: tuple[Turn, int, float] | None = None  # ended by a throw, board not yet seen
    clock: Side | None = None
    over: bool = False
    _premature: _Premature | None = None
    _stirred: tuple[int, float, Side | None] | None = None  # dice moving: frame, time, clock
    # The last frame the tray went unwatched, its camera off its calibration (frame, time,
    # clock), until the dice are next heard of: a throw made then shows only as dice at rest
    # once it is back.
    _unwatched: tuple[int, float, Side | None] | None = None
    _latest: BoardBelief | None = None  # the last clear reading, and its frame and time
    _latest_at: tuple[int, float] = (0, 0.0)
    _stale: bool = True  # the board has moved since its last reading
    _start_checked: bool = False
    _start_flagged: Position | None = None

    def __post_init__(self) -> None:
        self.position = Position.start(self.variant)

    def resume(self, position: Position, mover: Side, roll: Dice | None = None) -> None:
        """Pick the game up at `position` with `mover` to throw next (a restarted service),
        or, given his `roll`, with `mover` playing it: the start position is not checked
        again."""
        self.position, self._start_checked = position, True
        self._set_mover(mover)
        self.turn = Turn(mover, Stage.ROLLED, roll) if roll is not None else None

    # -- input ------------------------------------------------------------------------------

    def override_dice(self, dice: Dice, frame: int, time: float) -> list[RefereeEvent]:
        """A judge reads the roll of the turn in play: it stands as read with certainty, and
        the board as last seen is judged again with it."""
        turn = self.turn
        if turn is None or turn.mover is None:
            return []
        turn.dice, turn.roll_confidence = dice, 1.0
        if turn.stage is Stage.THROWN:
            turn.stage, turn.rolled_at = Stage.ROLLED, (frame, time)
        events = [RefereeEvent("roll", frame, time, {"player": turn.mover.value,
                                                     "dice": list(dice), "judge": True})]
        if turn.moved and self._latest is not None:
            turn.flagged = None  # judged again below, against the roll as read by the judge
            turn.stage = Stage.ROLLED
            events += self._judge(turn, self._latest, *self._latest_at)
        return events

    def update(self, seen: Observation) -> list[RefereeEvent]:
        if self.over:
            return []
        events: list[RefereeEvent] = []
        self._stale = seen.board_stale
        if seen.dice_unwatched:
            self._unwatched = (seen.frame, seen.time, self.clock)
        for dice_event in seen.dice_events:
            events += self._on_dice(dice_event)
        if seen.clock is not None and seen.clock != self.clock:
            if self.clock is None:
                self.clock = seen.clock
                if self.mover is None:  # the first player's clock runs from the start
                    self._set_mover(seen.clock)
            else:
                pressed, self.clock = self.clock, seen.clock
                events.append(RefereeEvent("clock_press", seen.frame, seen.time,
                                           {"player": pressed.value}))
                events += self._on_press(pressed, seen.frame, seen.time)
        turn = self.turn
        if seen.board_moving and turn is not None:
            turn.handled = turn.handled or turn.stage is not Stage.THROWN
            if turn.flagged and turn.touched is None:
                turn.touched = (seen.frame, seen.time)
        pending = self._premature
        if pending is not None and pending.pressed and pending.roll and seen.board_moving:
            # The early thrower reaches for his checkers: the opponent counted it (5.4.18).
            events += self._count_premature(seen.frame, seen.time)
        if seen.board is not None and not seen.board.occluded:
            self._latest, self._latest_at = seen.board, (seen.frame, seen.time)
            events += self._on_board(seen.board, seen.frame, seen.time)
        return events

    # -- dice --------------------------------------------------------------------------------

    def _on_dice(self, event: DiceEvent) -> list[RefereeEvent]:
        unwatched, self._unwatched = self._unwatched, None
        if event.kind is Kind.ROLLING:
            # Dice stirring in the tray may be a hand picking them up: a throw is confirmed
            # when dice come to rest (read, cocked or stopped in the box).
            self._stirred = (event.frame, event.time, self.clock)
            return []
        events: list[RefereeEvent] = []
        # Dice come to rest unstirred after the camera was away: they were thrown unseen (the
        # same dice lying as before show no change, so no event), dated the last frame away.
        thrown = self._stirred or unwatched
        if event.kind in (Kind.ROLL_READ, Kind.COCKED, Kind.IN_BOX) and thrown:
            events += self._on_throw(*thrown)
        if event.kind is Kind.CLEARED:
            self._stirred = None
        return events + self._on_dice_at_rest(event)

    def _on_dice_at_rest(self, event: DiceEvent) -> list[RefereeEvent]:
        f, t = event.frame, event.time
        turn = self.turn
        player = {"player": self.mover.value} if self.mover else {}
        # Which die a count is for, in the tray camera's pixels, and how surely it lies so,
        # for the judges to see (none for a die counted unseen in the box).
        seen = event.to_json()
        die = {name: seen[key] for key, name in (("box", "die_box"), ("confidence", "confidence"))
               if key in seen}
        if event.kind in (Kind.COCKED, Kind.IN_BOX):
            reason = "cocked" if event.kind is Kind.COCKED else "in_box"
            return [RefereeEvent("count_start", f, t,
                                 {**player, "rule": event.rule, "reason": reason, **die})]
        if event.kind is Kind.VOID:
            self.turn, self._premature = None, None  # the same player throws again
            return [RefereeEvent("throw_void", f, t, {**player, "rule": event.rule, **die})]
        if event.kind is Kind.CANCELLED:
            return [RefereeEvent("count_cancelled", f, t, player)]
        if event.kind is Kind.ROLL_READ and turn is not None and turn.stage is Stage.THROWN:
            values = (event.values[0], event.values[1])
            if self._premature is not None:
                self._premature.roll = values  # counted or not: the opponent decides
                return []
            turn.dice, turn.stage = values, Stage.ROLLED
            turn.roll_confidence = _roll_confidence(event)
            turn.rolled_at = (f, t)
            # A die at the box's exit (the camera's roll names it): the judges are to look.
            at_exit = {"at_exit": True, "die_box": die["die_box"]} if "die_box" in die else {}
            return [RefereeEvent("roll", f, t, {**player, "dice": list(values),
                                                "confidence": round(turn.roll_confidence, 4),
                                                **at_exit})]
        if event.kind is Kind.ROLL_CHANGED:
            return self._roll_changed(event, (event.values[0], event.values[1]))
        pending = self._premature
        if event.kind is Kind.CLEARED and pending is not None and pending.roll is not None:
            if self._stale:  # checkers may have moved first: the next clear view tells
                pending.picked_up = (f, t)
                return []
            return self._not_counted(f, t)
        return []

    def _roll_changed(self, event: DiceEvent, values: Dice) -> list[RefereeEvent]:
        """A die moved after the roll was read: a cocked die read as flat fell, and the throw
        stands as it fell (5.4.33). Until the board changes the roll is what the dice show
        now; after that it stands as read, and the dice moving is on record."""
        f, t = event.frame, event.time
        pending, turn = self._premature, self.turn
        if pending is not None and pending.roll is not None:
            pending.roll = values  # the opponent counts the early throw as it lies
            return []
        if turn is None or turn.mover is None or turn.dice is None:
            return []
        fields = {"player": turn.mover.value, "dice": list(values), "read": list(turn.dice)}
        if turn.stage is not Stage.ROLLED or turn.moved:
            return [RefereeEvent("dice_moved", f, t, fields)]
        turn.dice, turn.roll_confidence, turn.rolled_at = values, _roll_confidence(event), (f, t)
        return [RefereeEvent("roll_changed", f, t,
                             {**fields, "confidence": round(turn.roll_confidence, 4)})]

    def _not_counted(self, f: int, t: float) -> list[RefereeEvent]:
        """The early throw's dice were picked up before any checker moved: the opponent did
        not count it (5.4.18)."""
        pending, self._premature, self.turn = self._premature, None, None
        assert pending is not None
        return [RefereeEvent("throw_not_counted", f, t,
                             {"player": pending.thrower.value, "rule": "5.4.18"})]

    def _on_throw(self, f: int, t: float, clock: Side | None) -> list[RefereeEvent]:
        self._stirred = None
        events = self._unseen_throw()
        turn = self.turn
        if turn is not None and turn.stage is Stage.THROWN:
            return []  # the same dice stirred again (a count cancelled, an arm over the tray)
        if self._thrown_again(turn, clock):
            assert turn is not None and turn.dice is not None
            events.append(RefereeEvent("roll_discarded", f, t, {
                "player": turn.mover.value if turn.mover else None, "dice": list(turn.dice),
                "detail": "the dice were thrown again before any checker moved"}))
        elif turn is not None and turn.mover is not None:
            # The opponent throws: the mover's turn ends here, whatever stands on the board.
            mover, thrower = turn.mover, turn.mover.other
            early = clock is mover and not turn.pressed
            if early:
                events.append(RefereeEvent("premature_throw", f, t, {
                    "player": thrower.value, "opponent": mover.value, "rule": "5.4.18"}))
            events += self._end_by_throw(turn, f, t)
            self._set_mover(thrower)
            self._premature = _Premature(thrower) if early else None
        elif turn is None and self.mover is not None and clock is self.mover.other:
            # The opponent pressed while the dice were in flight: they left the thrower's hand
            # with the opponent's clock still running (5.4.18).
            events.append(RefereeEvent("premature_throw", f, t, {
                "player": self.mover.value, "opponent": clock.value, "rule": "5.4.18"}))
            self._premature = _Premature(self.mover, pressed=True)
        self.turn = Turn(self.mover)
        player = {"player": self.mover.value} if self.mover else {}
        return [*events, RefereeEvent("throw_start", f, t, player)]

    def _thrown_again(self, turn: Turn | None, clock: Side | None) -> bool:
        """A throw before anything moved over the board, the mover's clock still running, is his
        own again: a throw made void unseen (a cocked die read as flat) or a misread, far
        likelier than the opponent throwing before the mover even began (5.4.18)."""
        if turn is None or turn.stage is not Stage.ROLLED or turn.handled or turn.dice is None:
            return False
        if clock is not None and clock is not turn.mover:
            return False
        return self._pass(turn, 0, 0.0) is None

    def _count_premature(self, f: int, t: float) -> list[RefereeEvent]:
        pending, self._premature = self._premature, None
        assert pending is not None and pending.roll is not None
        self.turn = Turn(pending.thrower, Stage.ROLLED, pending.roll, rolled_at=(f, t))
        return [RefereeEvent("roll", f, t, {"player": pending.thrower.value,
                                            "dice": list(pending.roll), "premature": True})]

    # -- clock ---------------------------------------------------------------------------------

    def _on_press(self, pressed: Side, f: int, t: float) -> list[RefereeEvent]:
        if self._premature is not None:
            if pressed is not self._premature.thrower:
                self._premature.pressed = True  # the early throw waits on the opponent's choice
            return []
        events = self._unseen_throw() if pressed is self.mover else []
        turn = self.turn
        if turn is None or pressed is not turn.mover:
            return events
        turn.pressed = True
        if turn.stage is Stage.THROWN:
            events += self._infer_roll(turn, f, t)
        return events + self._finish(turn, f, t)

    # -- ending a turn -------------------------------------------------------------------------

    def _finish(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        """The mover has pressed: record his move once the board shows it settled. An
        illegal position stays flagged until the opponent decides."""
        if turn.stage is Stage.FLAGGED or self._stale:
            return []
        events = self._judge_final(turn, f, t)
        if turn.candidate is None:
            return events
        self.turn = None
        events += self._record_move(turn)
        if not self.over and turn.mover is not None:
            self._set_mover(turn.mover.other)
        return events

    def _end_by_throw(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        """The opponent threw: an illegal position is accepted (5.5.1); a move whose final
        board was not seen settled waits for the next clear view."""
        if self._stale:
            self.closing = (turn, f, t)
            return []
        return self._judge_final(turn, f, t) + self._conclude(turn, (f, t), (f, t))

    def _conclude(self, turn: Turn, thrown: tuple[int, float],
                  seen: tuple[int, float]) -> list[RefereeEvent]:
        """What the opponent's throw (at `thrown`) leaves of a judged turn: an illegal
        position accepted, the legal move recorded, or a move never seen (as of `seen`)."""
        if turn.flagged is not None:
            return self._accept(turn, *thrown)
        if turn.candidate is not None:
            return self._record_move(turn)
        return self._unseen(turn, *seen)

    def _judge_final(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        """The turn is over and the board as last seen is its end: a partial play is no
        longer a move in progress but dice left unplayed."""
        if turn.stage is not Stage.ROLLED or turn.dice is None:
            return []
        passed = self._pass(turn, f, t)
        if passed is not None:
            turn.candidate = passed
            return []
        if self._latest is None:
            return []
        return self._judge(turn, self._latest, *self._latest_at, final=True)

    def _accept(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        assert turn.flagged is not None and turn.mover is not None
        self.position = restore_count(turn.flagged.with_turn(turn.mover.other))
        return [RefereeEvent("move_accepted", f, t, {
            "player": turn.mover.other.value, "opponent": turn.mover.value, "rule": "5.5.1",
            "position": self.position.to_json()})]

    def _pass(self, turn: Turn, f: int, t: float) -> tuple[Outcome, int, float] | None:
        """A roll with no legal step: the turn passes with the board unchanged (5.4.26),
        dated by the roll that showed it (or by `f`, `t` when none was read)."""
        assert turn.dice is not None
        outcomes = self.rules.outcomes(self.position.with_turn(turn.mover or self.position.turn),
                                       turn.dice)
        if len(outcomes) == 1 and not outcomes[0].moves:
            return (outcomes[0], *(turn.rolled_at or (f, t)))
        return None

    def _record_move(self, turn: Turn) -> list[RefereeEvent]:
        assert turn.candidate is not None and turn.mover is not None
        outcome, seen_frame, seen_time = turn.candidate
        self.position = outcome.position
        events = [RefereeEvent("move", seen_frame, seen_time, {
            "player": turn.mover.value, "dice": list(turn.dice or ()),
            "moves": [list(m) for m in outcome.moves], "position": outcome.position.to_json()})]
        result = self.position.result()
        if result is not None:
            self.over = True
            events.append(RefereeEvent("game_end", seen_frame, seen_time, {"result": {
                "winner": result.winner.value, "kind": result.kind.value,
                "points": result.points}, "position": self.position.to_json()}))
        return events

    # -- the board -----------------------------------------------------------------------------

    def _on_board(self, belief: BoardBelief, f: int, t: float) -> list[RefereeEvent]:
        if not self._start_checked:
            return self._check_start(belief, f, t)
        events: list[RefereeEvent] = []
        if self.closing is not None:
            events += self._close(belief, f, t)
        if self._premature is not None:
            picked_up = self._premature.picked_up
            if self._premature.roll is not None and differs(belief, self.position):
                events += self._count_premature(f, t)
            elif picked_up is not None:
                return events + self._not_counted(*picked_up)
            else:
                return events
        turn = self.turn
        if turn is None or turn.dice is None:
            return events
        if turn.mover is None:
            turn.mover = self._likelier_mover(belief, turn.dice)
            self._set_mover(turn.mover)
        events += self._judge(turn, belief, f, t)
        if turn.pressed:
            events += self._finish(turn, f, t)
        return events

    def _close(self, belief: BoardBelief, f: int, t: float) -> list[RefereeEvent]:
        """Judge the first clear view for the turn that the opponent's throw ended."""
        assert self.closing is not None
        turn, ended_frame, ended_time = self.closing
        self.closing = None
        if turn.dice is None or turn.mover is None:
            return []
        flagged = turn.flagged
        events = self._judge(turn, belief, f, t, final=True)
        # A new flag may come from the thrower's own checkers already moving in this view.
        withdrawn = False
        if turn.flagged is not None and flagged is not None:  # not corrected: it stands as raised
            turn.flagged, withdrawn = flagged, True
        elif turn.flagged is not None and (played := self._played_before(turn, belief)):
            turn.flagged, turn.stage = None, Stage.MOVED
            turn.candidate, withdrawn = (played, ended_frame, ended_time), True
        if withdrawn:
            events = [event for event in events if event.event != "illegal_move"]
        return events + self._conclude(turn, (ended_frame, ended_time), (f, t))

    def _played_before(self, turn: Turn, belief: BoardBelief) -> Outcome | None:
        """The closing turn's legal outcome from which the view is the thrower's roll played
        or being played (legally or not), if one is: his checkers moved before the board was
        seen settled."""
        thrower = self.turn
        if thrower is None or thrower.dice is None or turn.dice is None or turn.mover is None:
            return None
        best: tuple[float, Outcome] | None = None
        for outcome in self.rules.outcomes(self.position.with_turn(turn.mover), turn.dice):
            judged = explain(self.rules, outcome.position, thrower.dice, belief)
            # The mover's checkers stand as this outcome left them; the thrower's moves are
            # his own turn's to judge, legal or not.
            fits = (judged.kind in ("outcome", "partial") if not judged.flag else
                    judged.observed.counts(turn.mover) == outcome.position.counts(turn.mover))
            if fits and (best is None or judged.score > best[0]):
                best = (judged.score, outcome)
        return best[1] if best is not None else None

    def _unseen(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        assert turn.mover is not None and turn.dice is not None
        return [RefereeEvent("move_unseen", f, t, {
            "player": turn.mover.value, "dice": list(turn.dice),
            "detail": "the board never showed a complete move before the opponent threw"})]

    def _judge(self, turn: Turn, belief: BoardBelief, f: int, t: float,
               final: bool = False) -> list[RefereeEvent]:
        assert turn.dice is not None and turn.mover is not None
        before = self.position.with_turn(turn.mover)
        found = explain(self.rules, before, turn.dice, belief, final)
        if found.flag and turn.roll_confidence < MIN_ROLL_CONFIDENCE:
            reread = self._reread_roll(before, belief, found)
            if reread is not None:
                was, turn.dice, turn.roll_confidence = turn.dice, reread, 1.0
                return [RefereeEvent("roll_reread", f, t, {
                    "player": turn.mover.value, "dice": list(reread), "read": list(was)}),
                    *self._judge(turn, belief, f, t, final)]
        if found.flag:
            assert found.verdict is not None
            if turn.flagged is not None and same_placement(turn.flagged, found.observed):
                return []
            turn.flagged, turn.touched, turn.candidate = found.observed, None, None
            turn.stage, turn.moved = Stage.FLAGGED, True
            return [RefereeEvent("illegal_move", f, t, {
                "player": turn.mover.value, "dice": list(turn.dice),
                "position": found.observed.to_json(), **found.verdict.to_json()})]
        events: list[RefereeEvent] = []
        if turn.flagged is not None:
            # Dated by the board's first touch after the flag, when the correction began.
            turn.flagged = None
            events.append(RefereeEvent("correction", *(turn.touched or (f, t)), {
                "player": turn.mover.value, "claimant": turn.mover.other.value,
                "rule": "5.4.47", "position": before.to_json()}))
        if found.outcome is not None:
            turn.candidate, turn.stage, turn.moved = (found.outcome, f, t), Stage.MOVED, True
        else:
            turn.candidate, turn.stage = None, Stage.ROLLED
            turn.moved = turn.moved or found.kind == "partial"
        return events

    def _reread_roll(self, before: Position, belief: BoardBelief,
                     found: Explanation | None) -> Dice | None:
        """The roll the settled board shows was played, when the dice were read with doubt
        (or not at all) and another roll explains the board: a misread die is no illegal
        move. With `found` (the flagged judgement) the other roll must explain the board."""
        best: tuple[float, Dice] | None = None
        for high in range(1, 7):
            for low in range(1, high + 1):
                judged = explain(self.rules, before, (high, low), belief)
                if not judged.flag and (best is None or judged.score > best[0]):
                    best = (judged.score, (high, low))
        if best is None or (found is not None and best[0] < found.score):
            return None
        return best[1]

    def _unseen_throw(self) -> list[RefereeEvent]:
        """No throw was seen this turn, yet the board shows a complete move of the player to
        throw (his dice hidden, or missed by the reader): take the roll the board shows, so
        that the press or the next throw ends his turn instead of starting it."""
        if self.turn is not None or self.mover is None:
            return []
        turn = Turn(self.mover)
        events = self._infer_roll(turn, *self._latest_at)  # dated by the board that shows it
        if turn.stage is not Stage.MOVED:
            return []  # a partial or doubtful change: the throw, if any, is still his
        self.turn = turn
        return events

    def _infer_roll(self, turn: Turn, f: int, t: float) -> list[RefereeEvent]:
        """The mover pressed and no roll was read: take the roll the board shows played."""
        if self._latest is None or turn.mover is None or not differs(self._latest, self.position):
            return []
        roll = self._reread_roll(self.position.with_turn(turn.mover), self._latest, None)
        if roll is None:
            return []
        turn.dice, turn.stage = roll, Stage.ROLLED
        events = [RefereeEvent("roll_reread", f, t, {"player": turn.mover.value,
                                                     "dice": list(roll), "read": None})]
        return events + self._judge(turn, self._latest, f, t)

    def _check_start(self, belief: BoardBelief, f: int, t: float) -> list[RefereeEvent]:
        start = self.position
        found = explain(self.rules, start, None, belief)
        if not found.flag:
            self._start_checked = True
            return []
        if self._start_flagged is not None and same_placement(self._start_flagged,
                                                              found.observed):
            return []
        self._start_flagged = found.observed
        problems = [f"{side.value} has {n} checkers on the board, not {CHECKERS_PER_SIDE}"
                    for side in Side
                    if (n := sum(found.observed.counts(side)[1:])) != CHECKERS_PER_SIDE]
        problems = problems or ["the checkers are not on their start points"]
        return [RefereeEvent("wrong_start", f, t, {
            "rule": "5.4.43-5.4.45", "problems": problems,
            "position": found.observed.to_json()})]

    def _likelier_mover(self, belief: BoardBelief, dice: Dice) -> Side:
        return max(Side, key=lambda side: explain(
            self.rules, self.position.with_turn(side), dice, belief).score)

    def _set_mover(self, side: Side) -> None:
        self.mover = side
        self.position = self.position.with_turn(side)


def _roll_confidence(event: DiceEvent) -> float:
    """A roll's confidence; one reported without any (a scripted source) is taken as sure."""
    return 1.0 if event.confidence is None else event.confidence
