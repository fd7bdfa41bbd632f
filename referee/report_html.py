"""The review's HTML page for a protest panel: one self-contained file (inline CSS and SVG,
no scripts) that reads and prints on its own, with the stills and clips beside it in flags/.

Every string that comes from the event log is HTML-escaped, and evidence paths are linked
only when they are plain relative paths inside the review folder.
"""

from __future__ import annotations

from html import escape
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from referee.diagram import board_svg, changed_points
from referee.position import Position, Side, Variant
from referee.record import GameRecord, result_text
from referee.report_words import clock, describe, html_text, is_number, when

if TYPE_CHECKING:
    from referee.report import ReviewFiles

FLAG_EVENTS = frozenset({"illegal_move", "premature_throw", "wrong_start", "throw_void"})
_MOVED = ("move", "move_accepted")  # events whose position is the board play went on from

_CSS = """
body{font-family:system-ui,sans-serif;color:#111;max-width:62em;margin:1em auto;padding:0 1em;
line-height:1.4}
h1{font-size:1.5em;margin-bottom:.3em}h2{border-bottom:2px solid #444;margin-top:1.8em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border:1px solid #bbb;padding:.2em .4em;text-align:left;vertical-align:top}
th{background:#eee}td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.chain{font-size:1.25em;font-weight:bold;padding:.5em .8em;border:3px solid;margin:.6em 0}
.ok{border-color:#2a7a2a;background:#eaf6ea}.broken{border-color:#b00;background:#fdeaea;color:#900}
code{font-family:ui-monospace,monospace;word-break:break-all}
tr.flag{background:#fff0d0}tr.unverified td{color:#900;font-style:italic}
.card{border:2px solid #c60;padding:.2em 1em 1em;margin:1em 0;break-inside:avoid}
figure{display:inline-block;margin:.4em;vertical-align:top;break-inside:avoid}
figcaption{font-size:.9em;max-width:24em}img,video{max-width:100%;height:auto}
.notes li{color:#900}
@media print{video{display:none}a{color:inherit;text-decoration:none}}
"""


def render(files: ReviewFiles) -> str:
    """The whole page."""
    start = next((e for e in files.events if e.get("event") == "review_start"), {})
    variant = Variant(start["variant"]) if start.get("variant") in ("long", "short") else None
    flags = [e for e in files.events if e.get("event") in FLAG_EVENTS or "evidence" in e]
    flag_numbers = {id(event): number for number, event in enumerate(flags, 1)}
    lines = _turn_lines(files.game.record) if files.game is not None else []
    # The line of the turn each move event decided, by the event's seq.
    turn_lines = dict(zip(files.game.turn_seqs, enumerate(lines, 1), strict=True)
                      ) if files.game is not None else {}
    body = [
        _header(files, start),
        f"<h2 id='flags'>Flags ({len(flags)})</h2>",
        *(_flag(files, event, number, variant) for number, event in enumerate(flags, 1)),
        "" if flags else "<p>No flags.</p>",
        _timeline(files, flag_numbers, turn_lines),
        _moves(files, lines),
    ]
    title = f"Review of {html_text(start.get('video', 'a match'))}"
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{title}</title><style>{_CSS}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _header(files: ReviewFiles, start: dict[str, Any]) -> str:
    chain, summary = files.chain, files.summary or {}
    if chain.intact:
        status = (f"<div class='chain ok'>Evidence chain intact: {chain.records} records, "
                  f"last hash <code>{chain.last_hash}</code></div>")
    else:
        status = (f"<div class='chain broken'>Evidence chain BROKEN at seq {chain.broken_seq}: "
                  f"{html_text(chain.reason)}. Records from seq {chain.broken_seq} on are not "
                  f"verified; last intact hash <code>{chain.last_hash}</code></div>")
    last_time = max((e["time"] for e in files.events if is_number(e.get("time"))), default=0.0)
    duration = summary.get("video_seconds", last_time)
    speed = "unknown"
    if "speed" in summary:
        taken = html_text(summary.get("seconds"))
        speed = f"{html_text(summary['speed'])} times real time ({taken} s)"
    finished = "complete" if summary.get("complete") else "stopped early"
    if summary.get("problem"):
        finished += f": {html_text(summary['problem'])}"
    game = files.game
    result = "none: the game did not end in the video"
    if game is not None and game.record.result is not None:
        result = html_text(result_text(game.record.result))
    rows = [("video", html_text(start.get("video", "unknown"))),
            ("variant", f"{html_text(start.get('variant', 'unknown'))} nardy"),
            ("duration", f"{clock(duration)} ({html_text(summary.get('frames', '?'))} frames)"),
            ("review speed", speed),
            ("review", finished if files.summary is not None else "no summary"),
            ("result", result)]
    notes = list(files.notes) + ([game.unfinished] if game and game.unfinished else [])
    record_files = "".join(f" <a href='{name}'>{name}</a>"
                           for name in ("record.txt", "record.json", "match.mat")
                           if (files.folder / name).is_file())
    return (f"<h1>Match review: {html_text(start.get('video', ''))}</h1>{status}"
            + "<table>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
            + "</table>"
            + ("<ul class='notes'>" + "".join(f"<li>{html_text(n)}</li>" for n in notes) + "</ul>"
               if notes else "")
            + (f"<p>Game record:{record_files}</p>" if record_files else ""))


def _flag(files: ReviewFiles, event: dict[str, Any], number: int, variant: Variant | None) -> str:
    kind = str(event.get("event", "?"))
    who = f", {html_text(event['player'])}" if event.get("player") else ""
    heading = f"Flag {number}: {html_text(kind.replace('_', ' '))}{who} at {when(event)}"
    rules = "".join(f"<tr><td>{html_text(rule)}</td><td>{html_text(message)}</td></tr>"
                    for rule, message in _rules_broken(event))
    parts = [f"<div class='card' id='flag-{number}'><h3>{heading}</h3>",
             f"<p>{describe(event)}</p>",
             f"<table><tr><th>clause</th><th>what happened</th></tr>{rules}</table>"]
    outcome = _outcome(files.events, event)
    if outcome:
        parts.append(f"<p><b>Decision:</b> {outcome}</p>")
    if "position" in event and variant is not None:
        parts.append(_observed(files.events, event, variant))
    evidence = event.get("evidence")
    parts.append(_evidence(files, evidence if isinstance(evidence, dict) else {}))
    return "".join(parts) + "</div>"


def _rules_broken(event: dict[str, Any]) -> list[tuple[Any, Any]]:
    kind = event.get("event")
    if kind == "illegal_move":
        return [(v.get("rule"), v.get("message")) for v in _list(event.get("violations"))
                if isinstance(v, dict)]
    if kind == "wrong_start":
        return [(event.get("rule"), problem) for problem in _list(event.get("problems"))]
    if kind == "premature_throw":
        return [(event.get("rule"), f"{event.get('player')} threw while "
                 f"{event.get('opponent')}'s clock still ran")]
    if kind == "throw_void":
        return [(event.get("rule"), "the dice did not settle flat in the tray within 3 seconds;"
                 " the throw does not count")]
    return [(event.get("rule"), kind)]


def _outcome(events: list[dict[str, Any]], flag: dict[str, Any]) -> str:
    """What the opponent decided on an illegal move, and whether an early throw counted."""
    kind, player = flag.get("event"), flag.get("player")
    later = events[events.index(flag) + 1:]
    for event in later:
        if kind == "illegal_move" and event.get("event") == "correction" and (
                event.get("player") == player):
            return f"corrected on the opponent's claim at {when(event)} (5.4.47)"
        if kind == "illegal_move" and event.get("event") == "move_accepted" and (
                event.get("opponent") == player):
            return f"accepted: the opponent played on at {when(event)} (5.5.1)"
        if kind == "premature_throw" and event.get("player") == player:
            if event.get("event") == "roll" and event.get("premature"):
                return f"counted: {describe(event)} at {when(event)}"
            if event.get("event") == "throw_not_counted":
                return f"not counted: the dice were picked up at {when(event)}"
    return "no decision in the log" if kind in ("illegal_move", "premature_throw") else ""


def _observed(events: list[dict[str, Any]], flag: dict[str, Any], variant: Variant) -> str:
    """The board as flagged, its changes from the board before outlined, and the nearest legal
    outcomes with their differences from it."""
    try:
        observed = Position.from_json(flag["position"])
        before = Position.start(variant)
        for event in events[: events.index(flag)]:
            if event.get("event") in _MOVED and "position" in event:
                before = Position.from_json(event["position"])
        nearest = [Position.from_json(p) for p in _list(flag.get("nearest_legal"))]
    except (KeyError, TypeError, ValueError) as error:
        return f"<p>The positions of this flag cannot be drawn: {html_text(error)}</p>"
    mover = Side(flag["player"]) if flag.get("player") in ("white", "black") else None
    figures = [_figure(board_svg(observed, mover=mover, marked=changed_points(before, observed),
                                 title="the board as seen"),
                       "the board as seen; red: points changed by the move")]
    figures += [_figure(board_svg(legal, mover=mover, marked=changed_points(observed, legal),
                                  width=230, title=f"nearest legal outcome {n}"),
                        f"nearest legal {n}; red: where it differs")
                for n, legal in enumerate(nearest, 1)]
    return "<div>" + "".join(figures) + "</div>"


def _evidence(files: ReviewFiles, evidence: dict[str, Any]) -> str:
    parts = []
    for key, tag in (("still", "img"), ("clip", "video")):
        path = evidence.get(key)
        url = _local_url(path)
        if url is None:
            parts.append(f"<p>{key}: {html_text(path) if path else 'none'}</p>")
        elif not (files.folder / str(path)).is_file():
            parts.append(f"<p>{key}: <code>{html_text(path)}</code> is missing</p>")
        elif tag == "img":
            parts.append(_figure(f"<img src='{url}' alt='still of the flag' width='480'>",
                                 f"still: <a href='{url}'>{html_text(path)}</a>"))
        else:
            parts.append(_figure(f"<video controls preload='metadata' width='480' src='{url}'>"
                                 "</video>", f"clip: <a href='{url}'>{html_text(path)}</a>"))
    return "<div>" + "".join(parts) + "</div>"


def _timeline(
    files: ReviewFiles, flags: dict[int, int], turns: dict[int, tuple[int, str]]
) -> str:
    broken = files.chain.broken_seq
    rows = []
    ordered = sorted(enumerate(files.events), key=lambda item: (_frame(item[1]), item[0]))
    for index, event in ordered:
        seq = event.get("seq", index)
        classes, what = [], describe(event)
        if id(event) in flags:
            classes.append("flag")
            what += f" <a href='#flag-{flags[id(event)]}'>flag {flags[id(event)]}</a>"
        elif isinstance(seq, int) and seq in turns and event.get("event") in _MOVED:
            number, line = turns[seq]
            what = f"{html_text(line)} <a href='#turn-{number}'>board</a>"
        if broken is not None and (not isinstance(seq, int) or seq >= broken):
            classes.append("unverified")
        rows.append(f"<tr class='{' '.join(classes)}'><td class='n'>{html_text(seq)}</td>"
                    f"<td class='n'>{clock(event.get('time'))}</td>"
                    f"<td class='n'>{html_text(event.get('frame', ''))}</td>"
                    f"<td>{html_text(event.get('event', '?'))}</td>"
                    f"<td>{what}</td></tr>")
    return ("<h2 id='timeline'>Timeline</h2><p>Every event in the order of the video; "
            "<i>seq</i> is its place in the log, in the order the referee decided.</p>"
            "<table><tr><th>seq</th><th>time</th><th>frame</th><th>event</th>"
            "<th>what happened</th></tr>" + "".join(rows) + "</table>")


def _moves(files: ReviewFiles, lines: list[str]) -> str:
    if files.game is None:
        return ""
    figures = []
    turns = files.game.record.turns_with_positions()
    for number, ((before, turn), line) in enumerate(zip(turns, lines, strict=True), 1):
        if turn.void:
            continue
        marked = () if turn.moves else changed_points(before, turn.position_after)
        svg = board_svg(turn.position_after, turn.moves, turn.player, marked, width=340,
                        title=f"after turn {number}")
        when = f"rolled at {clock(turn.time)} (frame {html_text(turn.frame)})"
        figures.append(f"<span id='turn-{number}'></span>"
                       + _figure(svg, f"{html_text(line)}<br>{when}"))
    return ("<h2 id='moves'>Moves</h2><p>The board after each move, points numbered for the "
            "mover; orange: the steps played; red: a change no steps explain.</p>"
            + "".join(figures))


def _turn_lines(record: GameRecord) -> list[str]:
    """The notation's line of each turn (it starts with the start position when set, and
    ends with the result)."""
    lines = record.notation().splitlines()
    if record.result is not None:
        lines.pop()
    return lines[len(lines) - len(record.turns):]


def _figure(content: str, caption: str) -> str:
    return f"<figure>{content}<figcaption>{caption}</figcaption></figure>"


def _local_url(path: Any) -> str | None:
    """A URL for a plain relative path inside the review folder, else None."""
    if not isinstance(path, str) or not path or "\\" in path or ":" in path:
        return None
    parts = PurePosixPath(path).parts
    if PurePosixPath(path).is_absolute() or ".." in parts:
        return None
    return escape(quote(path), quote=True)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _frame(event: dict[str, Any]) -> float:
    return event["frame"] if is_number(event.get("frame")) else float("inf")
