"""Apply variants on the chat card, as a GM does it with the mouse (issue 16, "What Foundry users
expect": dnd5e's damage card applies to the targets or to the selected tokens, halved, doubled
or as healing, and Undo / Redo).

The soe table (linked actors with hit points): half, Undo, Redo, double, full, heal. The SHOCK
table (an unlinked NPC, two tokens of it): the result applied to the selected token, not the
shot one, on that token's own synthetic actor; Undo and Redo. Players keep the plain Apply."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
RHINO = "Lesser Venusian Rhino"
# The shooter rolls high, the target low: a sure wound (as test_table.py).
SCRIPTED_DICE_JS = """() => {
    let i = 0;
    globalThis.__realUniform ??= CONFIG.Dice.randomUniform;
    CONFIG.Dice.randomUniform = () => (i++ % 2 === 0 ? 0.9 : 0.0);
}"""
REAL_DICE_JS = """() => {
    if (globalThis.__realUniform) CONFIG.Dice.randomUniform = globalThis.__realUniform;
}"""
HP_JS = """(name) => { const s = game.actors.getName(name).flags.firefight.soe;
    return s.hp ?? s.hp_max; }"""
LOSS_JS = """(id) => -game.messages.get(id).flags.firefight.result.effects
    .filter(e => e.kind === 'hp' && e.target === 'target').reduce((a, e) => a + e.delta, 0)"""


def _fire(table: Table, shooter: str, target: str) -> Any:
    """Select, target, Shoot, Fire (scripted dice); the new card."""
    page = table.page
    table.reset()
    table.token(shooter).click()
    table.token(target).click(button="right")
    count = page.evaluate("() => game.messages.size")
    page.evaluate(SCRIPTED_DICE_JS)
    try:
        page.click("#shoot-button")
        page.locator('dialog.application button[data-action="fire"]').click()
        page.wait_for_function("(n) => game.messages.size > n", arg=count)
    finally:
        page.evaluate(REAL_DICE_JS)
    mid = page.evaluate("() => game.messages.contents.at(-1).id")
    card = page.locator(f'.chat-message[data-message-id="{mid}"]')  # this card, not the latest
    card.locator(".firefight-card-actions").wait_for()
    return card


def _wait_hp(page: Any, name: str, hp: int) -> None:
    page.wait_for_function(f"(n) => ({HP_JS})(n) === {hp}", arg=name)


def test_half_double_heal_undo_and_redo(ready_table: Table) -> None:
    page = ready_table.page
    card = _fire(ready_table, RIFLEMAN, RHINO)
    mid = card.get_attribute("data-message-id")
    loss = page.evaluate(LOSS_JS, mid)
    assert loss > 1
    hp0 = page.evaluate(HP_JS, RHINO)
    # The GM's card offers the choice of tokens and the variants (the result has hit points).
    assert card.locator('.ff-apply-to input[value="targets"]').is_checked()
    for variant in ("half", "double", "heal"):
        assert (
            card.locator(
                f'[data-firefight-action="apply-variant"][data-variant="{variant}"]'
            ).count()
            == 1
        )
    # Half: rounded toward zero (dnd5e rounds halved damage down).
    card.locator('[data-variant="half"]').click()
    _wait_hp(page, RHINO, hp0 - loss // 2)
    state = card.locator('.ff-applied-state[data-state="applied"]')
    state.wait_for()
    assert state.get_attribute("data-variant") == "half"
    assert "Half" in state.inner_text()
    assert f"{hp0 - loss // 2}/65 HP" in (ready_table.token(RHINO).text_content() or "")
    card.screenshot(path=str(ready_table.shot("apply-variants-half").with_name("apply-variants-card.png")))
    # Undo, then Redo: the same half again.
    card.locator('[data-firefight-action="undo-effects"]').click()
    _wait_hp(page, RHINO, hp0)
    card.locator('.ff-applied-state[data-state="undone"]').wait_for()
    card.locator('[data-firefight-action="redo-effects"]').click()
    _wait_hp(page, RHINO, hp0 - loss // 2)
    card.locator('.ff-applied-state[data-state="applied"][data-variant="half"]').wait_for()
    # Undo the redo; then apply it doubled instead.
    card.locator('[data-firefight-action="undo-effects"]').click()
    _wait_hp(page, RHINO, hp0)
    card.locator('[data-variant="double"]').click()
    _wait_hp(page, RHINO, hp0 - 2 * loss)
    card.locator('[data-firefight-action="undo-effects"]').click()
    _wait_hp(page, RHINO, hp0)
    # In full; a second, identical shot then heals as much (back to where it started).
    card.locator('[data-firefight-action="apply-effects"]').click()
    _wait_hp(page, RHINO, hp0 - loss)
    second = _fire(ready_table, RIFLEMAN, RHINO)
    assert page.evaluate(LOSS_JS, second.get_attribute("data-message-id")) == loss
    second.locator('[data-variant="heal"]').click()
    _wait_hp(page, RHINO, hp0)
    # Each undoes alone, latest first.
    second.locator('[data-firefight-action="undo-effects"]').click()
    _wait_hp(page, RHINO, hp0 - loss)
    card.locator('[data-firefight-action="undo-effects"]').click()
    _wait_hp(page, RHINO, hp0)
    assert page.locator(".notification.error").count() == 0
    assert ready_table.errors == []


def test_selected_with_nothing_selected_is_refused_by_name(ready_table: Table) -> None:
    page = ready_table.page
    card = _fire(ready_table, RIFLEMAN, RHINO)
    hp0 = page.evaluate(HP_JS, RHINO)
    page.evaluate("() => canvas.tokens.releaseAll()")  # as a click on the empty board does
    card.locator(".ff-apply-to label", has_text="Selected tokens").click()
    card.locator(".firefight-card-actions").screenshot(path=str(ready_table.shot("apply-controls")))
    card.locator('[data-firefight-action="apply-effects"]').click()
    page.locator(".notification.warning", has_text="select the tokens").wait_for()
    assert page.evaluate(HP_JS, RHINO) == hp0
    assert card.locator(".ff-applied-state").count() == 0


def test_hover_a_name_highlights_its_token_and_a_modifier_shows_its_source(
    ready_table: Table,
) -> None:
    page = ready_table.page
    card = _fire(ready_table, RIFLEMAN, RHINO)
    ready_table.reset()
    rhino_id = page.evaluate("(n) => canvas.tokens.placeables.find(t => t.name === n).id", RHINO)
    hovered = "(id) => canvas.tokens.get(id).hover === true"
    name = card.locator(".ff-participant", has_text=RHINO)
    name.hover()
    page.wait_for_function(hovered, arg=rhino_id)
    assert "hovered" in (ready_table.token(RHINO).get_attribute("class") or "")
    card.locator(".ff-title").hover()
    page.wait_for_function(f"(id) => !({hovered})(id)", arg=rhino_id)
    # A modifier row names its source when hovered (the rows open under "Dice and modifiers").
    card.locator(".ff-details-toggle").click()
    row = card.locator(".ff-modifier").first
    source = row.locator(".ff-mod-source").inner_text().strip()
    assert source
    row.hover()
    assert row.get_attribute("title") == source
    assert "ff-hovered" in (row.get_attribute("class") or "")
    # Keyboard: from the card's title, Tab reaches the details' toggle, the modifier rows, then
    # the names.
    card.locator(".ff-title").click()
    page.keyboard.press("Tab")
    assert "ff-details-toggle" in page.evaluate("() => document.activeElement.className")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.className")
    assert "ff-modifier" in focused
    assert "ff-hovered" in focused
    for _ in range(30):
        if "ff-participant" in page.evaluate("() => document.activeElement.className"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == RIFLEMAN
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == RHINO
    page.wait_for_function(hovered, arg=rhino_id)
    # Enter selects it (dnd5e: a click on a card's target controls it).
    page.keyboard.press("Enter")
    page.wait_for_function("(id) => canvas.tokens.get(id).controlled", arg=rhino_id)
    page.keyboard.press("Tab")
    page.wait_for_function(f"(id) => !({hovered})(id)", arg=rhino_id)
    ready_table.reset()


# --- SHOCK: an unlinked NPC, applied to the selected token -----------------------------------

# Hit location d10 = 4 (arm), severity d10 = 1: a STUN (as test_systems.py).
STUN_DICE_JS = """() => {
    globalThis.__realUniform ??= CONFIG.Dice.randomUniform;
    const seq = [0.35, 0.0];
    let i = 0;
    CONFIG.Dice.randomUniform = () => (i < seq.length ? seq[i++] : 0.0);
}"""
NPC_ID = "ffSTregular00000"
NPC = "Generic Regular"
SHOOTER = "Generic Veteran"
TOKENS_JS = """(name) => canvas.tokens.placeables.filter(t => t.name === name).map(t => ({
    id: t.id, state: t.actor.flags.firefight.shock.state ?? null,
    statuses: [...t.actor.statuses].sort()}))"""
WORLD_JS = """(id) => { const a = game.actors.get(id);
    return {state: a.flags.firefight.shock.state ?? null, statuses: [...a.statuses].sort()}; }"""


@pytest.fixture(scope="module")
def shock(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 900},
                                        settings={"firefight.ruleset": "shock"})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(f"{server}?pack=shock-troops")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_apply_to_the_selected_unlinked_token_undo_and_redo(shock: Table) -> None:
    page = shock.page
    # A second token of the unlinked NPC, dragged from the actors directory onto the scene.
    page.locator('[data-sidebar-tab="actors"][role="tab"]').click()
    drop = page.evaluate("""() => { const svg = document.getElementById('scene');
        const p = svg.createSVGPoint(); p.x = 1150; p.y = 1250;
        const q = p.matrixTransform(svg.getScreenCTM()); const r = svg.getBoundingClientRect();
        return {x: q.x - r.left, y: q.y - r.top}; }""")
    page.locator(f'#actors-list [data-document-id="{NPC_ID}"]').drag_to(
        page.locator("#scene"), target_position=drop
    )
    page.wait_for_function(
        "(n) => canvas.tokens.placeables.filter(t => t.name === n).length === 2", arg=NPC
    )
    page.locator('[data-sidebar-tab="chat"][role="tab"]').click()
    first, second = page.evaluate(TOKENS_JS, NPC)
    world_before = page.evaluate(WORLD_JS, NPC_ID)
    # Shoot the first token: a stun.
    shock.reset()
    shock.token(SHOOTER).click()
    page.locator(f'.token[data-token-id="{first["id"]}"]').click(button="right")
    page.evaluate(STUN_DICE_JS)
    try:
        page.locator("#shoot-button").click()
        dialog = page.locator("dialog.application.firefight-dialog")
        dialog.locator('[name="opt.options.referee_confirmed_hit"]').check()
        dialog.locator('[data-action="fire"]').click()
        card = page.locator(".chat-message.firefight-message").last
        card.locator('[data-firefight-action="apply-effects"]').wait_for()
    finally:
        page.evaluate(REAL_DICE_JS)
    mid = card.get_attribute("data-message-id")
    assert (
        page.evaluate("(id) => game.messages.get(id).flags.firefight.result.outcome.result", mid)
        == "stun"
    )
    # SHOCK's stun has no hit points: no half / double / heal.
    assert card.locator('[data-firefight-action="apply-variant"]').count() == 0
    # The GM selects the second token and applies the card to it.
    page.locator(f'.token[data-token-id="{second["id"]}"]').click()
    card.locator(".ff-apply-to label", has_text="Selected tokens").click()
    card.locator('[data-firefight-action="apply-effects"]').click()
    page.wait_for_function(
        "(id) => Boolean(game.messages.get(id).flags.firefight.applied)", arg=mid
    )
    after = {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)}
    assert after[second["id"]]["state"] == "stunned"
    assert "stun" in after[second["id"]]["statuses"]
    assert after[first["id"]] == first
    assert page.evaluate(WORLD_JS, NPC_ID) == world_before
    assert card.locator(".ff-applied-state").inner_text().startswith("Applied to Generic Regular")
    # Undo puts the second token back; Redo applies to it again (not to the shot token).
    card.locator('[data-firefight-action="undo-effects"]').click()
    page.wait_for_function("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", arg=mid)
    assert {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)} == {
        first["id"]: first,
        second["id"]: second,
    }
    shock.reset()  # Redo does not depend on what is selected now
    card.locator('[data-firefight-action="redo-effects"]').click()
    page.wait_for_function(
        "(id) => Boolean(game.messages.get(id).flags.firefight.applied)", arg=mid
    )
    after = {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)}
    assert after[second["id"]]["state"] == "stunned"
    assert after[first["id"]] == first
    # Applying it again while applied is refused, whatever is chosen.
    again = page.evaluate(f"() => game.modules.get('firefight').api.apply('{mid}')")
    assert again["code"] == "already_applied"
    card.locator('[data-firefight-action="undo-effects"]').click()
    page.wait_for_function("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", arg=mid)
    assert {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)} == {
        first["id"]: first,
        second["id"]: second,
    }
    assert page.evaluate(WORLD_JS, NPC_ID) == world_before
    assert page.locator(".notification.error").count() == 0
    assert shock.errors == []
