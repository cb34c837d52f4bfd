"""Apply variants through the GM relay (issue 16): a player's card keeps the plain Apply; a
player who asks for another token or a scaled result by a raw socket request is refused by name
and nothing changes; after the GM's Undo only the GM may apply it again (Redo)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_multiuser import HP_JS, OFFICER, RHINO, RIFLEMAN, Tables, open_tables
from test_relay import HASH_JS, _card, _forge, _posted


@pytest.fixture(scope="module")
def tables(server: str, browser: Any) -> Iterator[Tables]:
    yield from open_tables(server, browser)


UUID_OF_JS = "(n) => canvas.tokens.placeables.find(t => t.name === n).document.uuid"


def test_only_the_gm_chooses_tokens_and_variants(tables: Tables) -> None:
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)  # Player 1's own shot
    card = _card(p1, mid)
    card.locator('[data-firefight-action="apply-effects"]').wait_for()
    # The player's card: Apply alone (no choice of tokens, no half / double / heal) ...
    assert card.locator(".ff-apply-to").count() == 0
    assert card.locator('[data-firefight-action="apply-variant"]').count() == 0
    # ... the GM's copy of it has them.
    _card(gm, mid).locator(
        '[data-firefight-action="apply-variant"][data-variant="half"]'
    ).wait_for()
    rhino0, officer0 = gm.evaluate(HP_JS, RHINO), gm.evaluate(HP_JS, OFFICER)
    hash_ = p1.evaluate(HASH_JS, mid)
    officer = p1.evaluate(UUID_OF_JS, OFFICER)
    for extra in (
        {"variant": "double"},
        {"mode": "selected", "tokens": [officer]},
        {"tokens": [officer]},
    ):
        reply = _forge(p1, "apply", {"messageId": mid, "hash": hash_, **extra})
        assert reply["ok"] is False, (extra, reply)
        assert reply["code"] == "gm_choice"
        assert "only a GM" in reply["reason"]
    assert (gm.evaluate(HP_JS, RHINO), gm.evaluate(HP_JS, OFFICER)) == (rhino0, officer0)
    # The plain Apply works as before; the GM undoes it.
    card.locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", mid)
    hit = gm.evaluate(HP_JS, RHINO)
    assert hit < rhino0
    _card(gm, mid).locator('[data-firefight-action="undo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", mid)
    assert gm.evaluate(HP_JS, RHINO) == rhino0
    # Undone: spent for the player (no button, the relay refuses) ...
    card.locator('.ff-applied-state[data-state="undone"]').wait_for()
    assert card.locator("[data-firefight-action]").count() == 0
    reply = _forge(p1, "apply", {"messageId": mid, "hash": hash_})
    assert reply["code"] == "already_applied", reply
    assert gm.evaluate(HP_JS, RHINO) == rhino0
    # ... the GM's Redo applies it again, exactly as before.
    _card(gm, mid).locator('[data-firefight-action="redo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", mid)
    assert gm.evaluate(HP_JS, RHINO) == hit
    _card(gm, mid).locator('[data-firefight-action="undo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", mid)
    assert gm.evaluate(HP_JS, RHINO) == rhino0


# The author edits their own message's flags (allowed in Foundry): the card's list of where the
# result went is gone, so the card shows Apply again.
WIPE_JS = """(mid) => game.messages.get(mid).update({'flags.firefight.-=applied': null,
    'flags.firefight.-=undone': null})"""


def test_applied_to_a_selected_token_the_target_still_counts_it_applied(tables: Tables) -> None:
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)  # Player 1's shot at the rhino
    rhino0, officer0 = gm.evaluate(HP_JS, RHINO), gm.evaluate(HP_JS, OFFICER)
    # The GM applies it to the officer instead (selected on the GM's board).
    tables.gm.reset()
    tables.gm.token(OFFICER).click()
    card = _card(gm, mid)
    card.locator(".ff-apply-to label", has_text="Selected tokens").click()
    card.locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", mid)
    hit = gm.evaluate(HP_JS, OFFICER)
    assert hit < officer0
    assert gm.evaluate(HP_JS, RHINO) == rhino0
    assert card.locator(".ff-applied-state").inner_text().startswith(f"Applied to {OFFICER}")
    # Player 1 wipes the card's record and presses Apply: the rhino's marker still says applied.
    p1.evaluate(WIPE_JS, mid)
    tables.wait_all("(id) => !game.messages.get(id).flags.firefight.applied", mid)
    p1_card = _card(p1, mid)
    p1_card.locator('.ff-applied-state[data-state="applied"]').wait_for()
    reply = _forge(p1, "apply", {"messageId": mid, "hash": p1.evaluate(HASH_JS, mid)})
    assert reply["code"] == "already_applied", reply
    assert (gm.evaluate(HP_JS, RHINO), gm.evaluate(HP_JS, OFFICER)) == (rhino0, hit)
    # The GM's Undo finds the officer through the marker and restores him.
    card.locator('[data-firefight-action="undo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", mid)
    assert (gm.evaluate(HP_JS, RHINO), gm.evaluate(HP_JS, OFFICER)) == (rhino0, officer0)
