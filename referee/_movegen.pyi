from typing import TypeVar

_Pair = TypeVar("_Pair", bound=tuple[int, int])

def plays(
    own: bytes,
    opp: bytes,
    die1: int,
    die2: int,
    head_limit: int,
    closed_from: int,
    hits: bool,
    block: bool,
    front: int,
    route: bytes,
    at_route: bytes,
    mirror: bytes,
    move_type: type[_Pair],
    /,
) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[_Pair, ...]]] | None: ...
