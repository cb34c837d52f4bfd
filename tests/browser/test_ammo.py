"""Ammunition at the table (issue 16), as a person plays it: a rifle dragged from the compendium
onto a soldier's sheet brings its magazine; shots take their rounds off it until a shot needs
more than is loaded and is refused before any dice; Reload (in the Shoot dialog, on the sheet's
Firefight tab) refills it with a chat line; a player's shot that the GM's client rolls has its
rounds taken off by the GM's client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _js import SETTLED_JS
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

SHOOTER = "Corporal Ada Kowalski"  # Player 1's; she gets a Springfield M1903, five rounds
TARGET = "Grenadier Karl Vogt"
RIFLE = "Springfield"
LOADED_JS = """([shooter, rifle]) => canvas.tokens.placeables
    .find((t) => t.name.startsWith(shooter)).actor.items
    .find((i) => i.name.startsWith(rifle) && i.flags.firefight.ammo)?.flags.firefight.ammo.loaded
    ?? null"""
COUNT_JS = "() => game.messages.size"


class Pages:
    def __init__(self, gm: Table, player: Table) -> None:
        self.gm, self.player = gm, player


@pytest.fixture(scope="module")
def pages(server: str, browser: Any) -> Iterator[Pages]:
    """The GM and Player 1 at one percentile table (one browser context: one world)."""
    context = contexts_of(browser).open(settings={"firefight.ruleset": "percentile"})
    tables = {}
    for user in ("Gamemaster", "Player 1"):
        page = context.new_page()
        t = Table(server, context, page)
        page.on("pageerror", lambda e, t=t: t.errors.append(str(e)))
        page.goto(f"{server}?pack=percentile-actors&user={user.replace(' ', '%20')}")
        tables[user] = t
    for t in tables.values():
        t.page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    _give_rifle(tables["Gamemaster"])
    yield Pages(tables["Gamemaster"], tables["Player 1"])
    context.close()


def _sheet(t: Table) -> Any:
    """As a person does: double-click the token, then its sheet's Firefight tab."""
    t.reset()
    t.page.locator(f'.token[data-name^="{SHOOTER}"]').dblclick()
    sheet = t.page.locator("section.actor-sheet", has_text=SHOOTER).last
    sheet.locator("nav .firefight-tab").click()
    return sheet


def _give_rifle(gm: Table) -> None:
    """The referee drags a Springfield (it carries its magazine) from the compendium onto her
    sheet; the soldiers on the scene carry untracked weapons (docs/rules-notes.md)."""
    page = gm.page
    assert page.evaluate(LOADED_JS, [SHOOTER, RIFLE]) is None
    sheet = _sheet(gm)
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    pack = '.compendium-pack[data-pack="percentile-weapons-worldbuilding"]'
    page.locator(f"{pack} summary").click()
    entry = page.locator(f"{pack} .compendium-entry", has_text=RIFLE)
    entry.drag_to(sheet.locator(".window-content"))
    page.wait_for_function(f"() => ({LOADED_JS})({json.dumps([SHOOTER, RIFLE])}) === 5")
    sheet.locator('[data-action="close"]').first.click()
    page.click('#sidebar-tabs [data-sidebar-tab="chat"]')


def _loaded(t: Table) -> int:
    return int(t.page.evaluate(LOADED_JS, [SHOOTER, RIFLE]))


def _aim(t: Table) -> None:
    t.reset()
    t.page.locator(f'.token[data-name^="{SHOOTER}"]').click()
    t.page.locator(f'.token[data-name^="{TARGET}"]').click(button="right")


def _dialog(t: Table, rounds: int) -> Any:
    """Shoot pressed, the rifle's rounds typed in; the dialog once its odds have settled."""
    t.page.locator("#shoot-button").click()
    dialog = t.page.locator("dialog.application.firefight-dialog")
    dialog.locator('[name="opt.options.rounds"]').fill(str(rounds))
    t.page.wait_for_function(SETTLED_JS, timeout=60000)
    dialog.locator("[data-firefight-ammo]").filter(has_text=f"fires {rounds}").wait_for()
    return dialog


def _fire(t: Table, rounds: int) -> None:
    count = t.page.evaluate(COUNT_JS)
    _dialog(t, rounds).locator('button[data-action="fire"]').click()
    t.page.wait_for_function("(n) => game.messages.size > n", arg=count, timeout=60000)


def test_shots_empty_the_magazine_a_short_shot_is_refused_reload_refills(pages: Pages) -> None:
    gm = pages.gm
    page = gm.page
    assert _loaded(gm) == 5
    _aim(gm)
    _fire(gm, 2)
    assert _loaded(gm) == 3
    _fire(gm, 2)
    assert _loaded(gm) == 1
    # Two rounds from one loaded: the dialog says so, and Fire is refused before any dice.
    count = page.evaluate(COUNT_JS)
    dialog = _dialog(gm, 2)
    line = dialog.locator("[data-firefight-ammo]")
    assert "Rounds loaded: 1/5" in line.inner_text()
    assert line.locator(".ff-short").count() == 1
    dialog.locator('button[data-action="fire"]').click()
    refusal = page.locator("#notifications .notification.error",
                           has_text="has 1 of 5 rounds loaded; this shot fires 2")
    refusal.wait_for()
    assert page.evaluate(COUNT_JS) == count
    assert _loaded(gm) == 1
    # Reload in the dialog: full again, a chat line says who reloaded what; then the shot goes.
    dialog = _dialog(gm, 2)
    dialog.locator('[data-firefight-ammo] [data-firefight-action="reload"]').click()
    dialog.locator("[data-firefight-ammo]").filter(has_text="5/5").wait_for()
    page.locator("#chat-log .message", has_text=f"reloads {RIFLE}").last.wait_for()
    count = page.evaluate(COUNT_JS)
    dialog.locator('button[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.size > n", arg=count, timeout=60000)
    assert _loaded(gm) == 3
    gm.shot("ammo-01-after-reload")
    # The actor sheet's Firefight tab: the rifle's count and its Reload.
    sheet = _sheet(gm)
    weapon = sheet.locator(".ff-sheet-weapons li", has_text="3/5")
    assert "3/5" in weapon.inner_text()
    weapon.locator('[data-firefight-action="sheet-reload"]').click()
    page.wait_for_function(f"() => ({LOADED_JS})({json.dumps([SHOOTER, RIFLE])}) === 5")
    sheet.locator(".ff-sheet-weapons li", has_text=RIFLE).filter(has_text="5/5").wait_for()
    assert sheet.locator(".ff-sheet-weapons li", has_text="/5").count() == 1  # one tracked
    sheet.locator('[data-action="close"]').first.click()
    assert gm.errors == []


def test_a_players_shot_the_gm_rolls_is_taken_off_by_the_gms_client(pages: Pages) -> None:
    gm, player = pages.gm, pages.player
    gm.page.evaluate("() => game.settings.set('firefight', 'gmRollsShots', true)")
    for t in (gm, player):
        t.page.wait_for_function("() => game.settings.get('firefight', 'gmRollsShots') === true")
    try:
        before = _loaded(gm)
        # The GM's client writes: the player's own client never updates the item.
        player.page.evaluate("""() => { globalThis.__itemWrites = 0;
            Hooks.on('preUpdateItem', (item, diff, options, userId) => {
                if (userId === game.user.id) globalThis.__itemWrites += 1; }); }""")
        _aim(player)
        _fire(player, 2)
        for t in (gm, player):
            t.page.wait_for_function(f"() => ({LOADED_JS})({json.dumps([SHOOTER, RIFLE])}) "
                                     f"=== {before - 2}")
        assert player.page.evaluate("() => globalThis.__itemWrites") == 0
        mid = player.page.evaluate("() => game.messages.contents.at(-1).id")
        result = gm.page.evaluate("(id) => game.messages.get(id).flags.firefight.result", mid)
        assert result["outcome"]["rounds_fired"] == 2
    finally:
        gm.page.evaluate("() => game.settings.set('firefight', 'gmRollsShots', false)")
    assert gm.errors == []
    assert player.errors == []


SPARES_JS = """([shooter, rifle]) => canvas.tokens.placeables
    .find((t) => t.name.startsWith(shooter)).actor.items
    .find((i) => i.name.startsWith(rifle) && i.flags.firefight.ammo)?.flags.firefight.ammo"""


def test_the_card_counts_rounds_and_reload_takes_a_spare_magazine(pages: Pages) -> None:
    """UX walkthrough 3 #11 (issue 25 item 8): the card says the rounds fired and left; the
    referee sets the spare magazines on the item's Firefight tab; Reload on the sheet's weapon
    row takes one, and with none left it is refused; an untracked weapon's row says so."""
    gm = pages.gm
    page = gm.page
    gm.page.evaluate("() => game.settings.set('firefight', 'gmRollsShots', false)")
    # The referee sets one spare magazine: the rifle's name on the sheet, its Firefight tab.
    sheet = _sheet(gm)
    tracked = sheet.locator(".ff-sheet-weapons li", has_text=RIFLE).filter(has_text="/5")
    tracked.locator(".ff-item-name").click()
    item_sheet = page.locator("section.item-sheet", has_text=RIFLE).last
    item_sheet.wait_for()
    item_sheet.locator("nav .firefight-tab").click()
    spares = item_sheet.locator('.firefight-item [name="opt.ammo.spares"]')
    spares.fill("1")
    spares.press("Tab")
    page.wait_for_function(f"() => ({SPARES_JS})({json.dumps([SHOOTER, RIFLE])})?.spares === 1")
    item_sheet.locator('[data-action="close"]').click()
    sheet.locator('[data-action="close"]').first.click()
    # A shot: the card says the rounds it fired and those left in the magazine.
    before = _loaded(gm)
    assert before >= 2
    _aim(gm)
    _fire(gm, 2)
    card = page.locator("#chat-log .chat-message").last
    card.locator(".ff-details-toggle").click()  # the card's details, as a person opens them
    assert f"2 rounds fired, {before - 2} of 5 left" in card.locator(".ff-rounds").inner_text()
    # The sheet's weapon row: the count with its spare, Reload takes the spare.
    sheet = _sheet(gm)
    row = sheet.locator(".ff-sheet-weapons li", has_text=RIFLE).filter(has_text="/5")
    assert "1 spare magazine" in row.inner_text()
    row.locator('[data-firefight-action="sheet-reload"]').click()
    page.wait_for_function(f"""() => {{ const a = ({SPARES_JS})({json.dumps([SHOOTER, RIFLE])});
        return a.loaded === 5 && a.spares === 0; }}""")
    page.locator("#chat-log .message", has_text="0 spare magazines left").last.wait_for()
    # None left: the row says so and its Reload is refused (disabled).
    sheet.locator(".ff-sheet-weapons li", has_text="0 spare magazines").wait_for()
    row = sheet.locator(".ff-sheet-weapons li", has_text=RIFLE).filter(has_text="/5")
    assert row.locator('[data-firefight-action="sheet-reload"]').is_disabled()
    # The soldier's other weapons carry no magazine: not counted, and the row says so.
    untracked = sheet.locator(".ff-sheet-weapons li").filter(has_not_text="/5")
    assert untracked.count() >= 1
    assert "rounds not counted" in untracked.first.inner_text()
    sheet.locator('[data-action="close"]').first.click()
    assert gm.errors == []
