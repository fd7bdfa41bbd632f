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
    /,
) -> list[tuple[bytes, bytes, tuple[tuple[int, int], ...]]] | None: ...
