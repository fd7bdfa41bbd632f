"""Who may use the service: judges list, make and revoke tokens.

A token is shown once, when it is made; the service keeps only its hash and names it by the
start of that hash. A revoked token stays listed, so the record of who could act stays
whole; requests with it answer 401 and its open streams close.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from api.auth import Judge
from api.deps import StoreDep
from api.hub import Hub
from api.models import NewTokenOut, TokenIn, TokenOut, errors
from api.store import TokenRow

router = APIRouter(prefix="/api/tokens", tags=["tokens"])


def token_out(row: TokenRow) -> TokenOut:
    return TokenOut(id=row.id, name=row.name, role=row.role,  # type: ignore[arg-type]
                    created_at=row.created_at, revoked_at=row.revoked_at)


@router.get("", responses=errors(401, 403))
def list_tokens(store: StoreDep, judge: Judge) -> list[TokenOut]:
    """Every token made, revoked ones too, oldest first."""
    return [token_out(row) for row in store.tokens()]


@router.post("", status_code=status.HTTP_201_CREATED, responses=errors(400, 401, 403))
def make_token(new: TokenIn, store: StoreDep, judge: Judge) -> NewTokenOut:
    """A new token for a judge or a viewer (an overlay, a screen): keep it, it is not shown
    again."""
    token = store.make_token(new.name, new.role)
    return NewTokenOut(**token_out(store.token_of(token)).model_dump(), token=token)


@router.delete("/{token_id}", responses=errors(401, 403, 404, 409))
def revoke_token(token_id: str, request: Request, store: StoreDep, judge: Judge) -> TokenOut:
    """Revoke a token: its requests answer 401 from now on and its open streams close. The
    last judge's token that works cannot be revoked (409)."""
    row = store.revoke_token(token_id)
    hub: Hub = request.app.state.hub
    hub.revoke(row.id)
    return token_out(row)
