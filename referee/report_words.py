"""The referee's events in plain words, for the review's page: every value taken from the
log is HTML-escaped here, so the page can place the words as they are."""

from __future__ import annotations

from html import escape
from typing import Any, TypeGuard

from referee.position import BAR, OFF
from referee.tracker import MIN_ROLL_CONFIDENCE
from vision.dice.stream import AT_EXIT

# Each event in words; the fields are escaped and pre-formatted by `_Fields`.
_TEMPLATES = {
    "review_start": "review of {video} ({variant} nardy, {fps} frames a second)",
    "throw_start": "{player} throws",
    "count_start": "3-second count: {reason} ({rule}){sure}",
    "count_cancelled": "count cancelled: the dice settled",
    "throw_void": "{player}'s throw is void ({rule}){sure}; {player} throws again",
    "roll": "{player} rolls {dice}{doubt}{at_exit}{premature}",
    "roll_reread": "{player}'s roll taken as {dice}, as the board shows (read: {read})",
    "roll_changed": "{player}'s roll now {dice}: a die moved after it was read (read: {read})",
    "dice_moved": "the dice moved after {player}'s move began: they show {dice}; the roll "
                  "stands as read ({read})",
    "illegal_move": "illegal move by {player} with {dice}: {violations}",
    "correction": "{player}'s move corrected on {claimant}'s claim ({rule})",
    "move_accepted": "{player} plays on: {opponent}'s illegal move stands ({rule})",
    "move": "{player} {dice}: {moves}",
    "premature_throw": "{player} threw before {opponent} had finished ({rule})",
    "throw_not_counted": "{player}'s early throw not counted ({rule})",
    "clock_press": "{player} presses the clock",
    "wrong_start": "wrong start position ({rule}): {problems}",
    "move_unseen": "{player} {dice}: the move was not seen ({detail})",
    "game_end": "{result}",
    "source": "video {kind}: {detail}",
    "camera_moved": "the camera moved since its calibration: {detail} until it is back or "
                    "calibrated again",
    "camera_back": "the camera is back where it was calibrated",
    "camera_flicker": "{detail}",
}
_REASONS = {"cocked": "a cocked die", "in_box": "a die stopped in the box"}


def describe(event: dict[str, Any]) -> str:
    """What the event says, as escaped HTML text."""
    template = _TEMPLATES.get(str(event.get("event")))
    if template is not None:
        try:
            return template.format_map(_Fields(event))
        except (AttributeError, TypeError, ValueError):
            pass  # a field of an unexpected shape (a damaged log): show the fields as they are
    fields = {k: v for k, v in event.items() if k not in ("seq", "prev", "hash", "event")}
    return html_text(fields)


class _Fields(dict[str, str]):
    """An event's fields for the templates: escaped, in words, '?' when missing."""

    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__()
        self.event = event

    def __missing__(self, key: str) -> str:
        value = self.event.get(key)
        if key == "premature":
            return " (an early throw, counted)" if value else ""
        if key == "sure":  # how surely the die counted lies so, when the camera read it
            sure = self.event.get("confidence")
            return f", the die read {round(100 * sure)}% sure" if is_number(sure) else ""
        if key == "doubt":
            # A roll read with doubt is where a cocked die read flat hides (a die the camera
            # called flat 0.37 sure, cocked on the frames after): the panel is told to look.
            sure = self.event.get("confidence")
            if is_number(sure) and sure < MIN_ROLL_CONFIDENCE:
                return f", read only {round(100 * sure)}% sure"
            return ""
        if key == "at_exit":  # a die there leaning on the lip looks flat from above
            return f", {AT_EXIT}" if value is True else ""
        if value is None:
            return "nothing" if key == "read" and "read" in self.event else "?"
        if key in ("dice", "read") and isinstance(value, list):
            return html_text("-".join(str(die) for die in value))
        if key == "moves" and isinstance(value, list):
            names = {BAR: "bar", OFF: "off"}
            steps = [f"{names.get(a, a)}/{names.get(b, b)}" for a, b in value]
            return html_text(" ".join(steps) or "no move")
        if key == "violations" and isinstance(value, list):
            return "; ".join(f"{html_text(v.get('message'))} ({html_text(v.get('rule'))})"
                             for v in value if isinstance(v, dict))
        if key == "problems" and isinstance(value, list):
            return "; ".join(html_text(problem) for problem in value)
        if key == "result" and isinstance(value, dict):
            return html_text(f"{value.get('winner')} wins: {value.get('kind')}, "
                             f"{value.get('points')} point(s)")
        return html_text(_REASONS.get(value, value) if key == "reason" else value)


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number (not a boolean, which Python counts as one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def when(event: dict[str, Any]) -> str:
    """The event's time and frame, as "01:02.3 (frame 1869)"."""
    return f"{clock(event.get('time'))} (frame {html_text(event.get('frame', '?'))})"


def clock(seconds: Any) -> str:
    """Seconds as mm:ss.s; '?' for no number."""
    if not is_number(seconds):
        return "?"
    minutes, tenths = divmod(round(float(seconds) * 10), 600)
    return f"{minutes:02d}:{tenths / 10:04.1f}"


def html_text(value: Any) -> str:
    return escape(str(value), quote=True)
