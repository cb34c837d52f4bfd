"""Weapon and armor data at the table (issue 16): an item's Firefight tab on its sheet (opened by
double-clicking the item), generated from the ruleset's item schema and checked by the engine
before it is saved; only an owner edits it; a weapon of another ruleset dropped on an actor
(its sheet or its token) is refused with a reason; the actor's delayed injuries are edited as
rows, by keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_sheet_from_directory, open_table

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
RIFLE = "Cei-Rigotti rifle"
SOE_DAMAGE_JS = """([actor, item]) => game.actors.getName(actor).items
    .find((i) => i.name.startsWith(item)).flags.firefight.soe.damage"""


@pytest.fixture(scope="module")
def gm(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "soe", "soe-actors")
    yield t
    t.context.close()


def _item_sheet(page: Any, actor: str, item: str) -> Any:
    """As a person does: the actor's sheet from the directory, its Items tab, a double-click on
    the item; the item sheet's Firefight tab."""
    sheet = open_sheet_from_directory(page, actor)
    sheet.locator('nav [data-tab="items"], nav [data-tab="inventory"]').click()
    sheet.locator(".items-list .item", has_text=item).dblclick()
    item_sheet = page.locator("section.item-sheet", has_text=item).last
    item_sheet.wait_for()
    item_sheet.locator("nav .firefight-tab").click()
    return item_sheet


def _close_all(page: Any) -> None:
    buttons = page.locator('section.sheet header [data-action="close"]')
    while buttons.count():
        buttons.first.click()


def test_an_owner_edits_a_weapon_on_its_item_tab(gm: Table) -> None:
    page = gm.page
    sheet = _item_sheet(page, RIFLEMAN, RIFLE)
    tab = sheet.locator(".firefight-item")
    damage = tab.locator('[name="opt.damage"]')
    assert damage.input_value() == str(page.evaluate(SOE_DAMAGE_JS, [RIFLEMAN, RIFLE]))
    assert tab.locator('[name="opt.weapon_type"] option:checked').inner_text() == "Rifle"
    gm.shot("items-1-weapon-tab")
    damage.fill("3")
    damage.press("Tab")  # a change saves
    page.wait_for_function(f"(a) => ({SOE_DAMAGE_JS})(a) === 3", arg=[RIFLEMAN, RIFLE])
    # Bad input: refused with the field named; nothing is written.
    tab = sheet.locator(".firefight-item")
    tab.locator('[name="opt.damage"]').fill("99")
    tab.locator('[name="opt.damage"]').press("Tab")
    error = tab.locator("[data-firefight-error]")
    error.wait_for()
    assert "Damage (Table 5)" in error.inner_text()
    assert RIFLE in error.inner_text()
    assert page.evaluate(SOE_DAMAGE_JS, [RIFLEMAN, RIFLE]) == 3
    _close_all(page)
    assert gm.errors == []


AMMO_JS = """([actor, item]) => game.actors.getName(actor).items
    .find((i) => i.name.startsWith(item)).flags.firefight.ammo ?? null"""


def test_a_referee_gives_a_weapon_a_magazine_from_the_actor_sheets_weapon_list(gm: Table) -> None:
    """The weapon's name on the actor's Firefight tab opens its sheet (a click, or Enter), as a
    Foundry sheet's item list does; its Firefight tab edits the magazine in the core Ammo
    model's bounds, the engine refusing a bad one by the field's name."""
    page = gm.page
    sheet = open_sheet_from_directory(page, RIFLEMAN)
    name = sheet.locator(".ff-sheet-weapons .ff-item-name", has_text=RIFLE)
    name.focus()
    page.keyboard.press("Enter")
    item_sheet = page.locator("section.item-sheet", has_text=RIFLE).last
    item_sheet.wait_for()
    item_sheet.locator('[data-action="close"]').click()
    item_sheet.wait_for(state="detached")
    name.click()
    item_sheet.wait_for()
    item_sheet.locator("nav .firefight-tab").click()
    tab = item_sheet.locator(".firefight-item")
    capacity = tab.locator('[name="opt.ammo.capacity"]')
    loaded = tab.locator('[name="opt.ammo.loaded"]')
    assert (capacity.get_attribute("min"), loaded.get_attribute("min")) == ("1", "0")
    assert capacity.input_value() == ""
    assert page.evaluate(AMMO_JS, [RIFLEMAN, RIFLE]) is None
    capacity.fill("6")
    loaded.fill("9")  # each change saves: 6 rounds and none loaded is refused, then 9 of 6
    loaded.press("Tab")
    tab.locator("[data-firefight-error]", has_text="9").wait_for()
    error = tab.locator("[data-firefight-error]")
    error.wait_for()
    assert "Rounds loaded" in error.inner_text()
    assert RIFLE in error.inner_text()
    assert page.evaluate(AMMO_JS, [RIFLEMAN, RIFLE]) is None
    loaded.fill("6")
    loaded.press("Tab")
    page.wait_for_function(f"(a) => ({AMMO_JS})(a)?.loaded === 6", arg=[RIFLEMAN, RIFLE])
    assert page.evaluate(AMMO_JS, [RIFLEMAN, RIFLE]) == {"capacity": 6, "loaded": 6}
    sheet.locator(".ff-sheet-weapons li", has_text=RIFLE).filter(has_text="6/6").wait_for()
    # Both emptied: the weapon's rounds are not counted any more.
    tab = item_sheet.locator(".firefight-item")
    tab.locator('[name="opt.ammo.capacity"]').fill("")
    tab.locator('[name="opt.ammo.loaded"]').fill("")
    tab.locator('[name="opt.ammo.loaded"]').press("Tab")
    page.wait_for_function(f"(a) => ({AMMO_JS})(a) === null", arg=[RIFLEMAN, RIFLE])
    _close_all(page)
    assert gm.errors == []


def _drag_from_compendium(page: Any, pack: str, name: str, target: Any, **kw: Any) -> None:
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    details = page.locator(f'.compendium-pack[data-pack="{pack}"]')
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    entry = details.locator(".compendium-entry", has_text=name).first
    entry.wait_for()
    entry.drag_to(target, **kw)


def test_a_weapon_of_another_ruleset_is_refused_on_either_drop(gm: Table) -> None:
    page = gm.page
    count = f"() => game.actors.getName({OFFICER!r}).items.size"
    before = page.evaluate(count)
    sheet = open_sheet_from_directory(page, OFFICER)
    _drag_from_compendium(page, "percentile-weapons-worldbuilding", "Arisaka",
                          sheet.locator(".window-content"))
    warning = page.locator("#notifications .notification.warning", has_text="Arisaka").last
    warning.wait_for()
    assert "Percentile" in warning.inner_text()
    assert OFFICER in warning.inner_text()
    _close_all(page)
    token = gm.token(OFFICER)
    _drag_from_compendium(page, "shock-weapons-worldbuilding", ".22 LR", token)
    page.locator("#notifications .notification.warning", has_text=".22 LR").last.wait_for()
    page.click('#sidebar-tabs [data-sidebar-tab="chat"]')
    assert page.evaluate(count) == before
    assert gm.errors == []


def test_delayed_injuries_are_rows_edited_by_keyboard(gm: Table) -> None:
    page = gm.page
    sheet = open_sheet_from_directory(page, OFFICER)
    injuries = sheet.locator('.firefight-sheet [data-list="delayed_injuries"]')
    assert "Possible delayed injuries" in injuries.locator("legend").inner_text()
    add = injuries.locator("[data-list-add]")
    add.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # not a second row: the focus is on the new row's choice
    rows = injuries.locator("[data-list-row]")
    assert rows.count() == 1
    rows.first.locator("select").select_option(label="Severe")
    add.focus()
    page.keyboard.press("Enter")
    rows.nth(1).locator("select").select_option(label="Minor")
    gm.shot("items-2-injuries")
    # A hit applied meanwhile redraws the sheet: the rows typed so far stay.
    page.evaluate(f"() => game.actors.getName({OFFICER!r}).update({{'flags.firefight.soe.hp': 5}})")
    assert rows.count() == 2
    assert rows.nth(1).locator("select option:checked").inner_text() == "Minor"
    # Remove the first by keyboard: the focus moves on to the remaining row's remove button.
    rows.first.locator("[data-list-remove]").focus()
    page.keyboard.press("Enter")
    assert rows.count() == 1
    assert page.evaluate("() => document.activeElement.matches('[data-list-remove]')")
    page.wait_for_function(
        f"() => JSON.stringify(game.actors.getName({OFFICER!r})"
        ".flags.firefight.soe.delayed_injuries) === '[\"minor\"]'")
    _close_all(page)
    assert gm.errors == []


def test_a_player_reads_but_cannot_edit_an_item_they_do_not_own(server: str, browser: Any) -> None:
    # In a dnd5e world (its item sheets' render hook and tabs, js-shim/systems/dnd5e.mjs).
    player = open_table(server, browser, "soe", "soe-actors", user="Player 1", system="dnd5e")
    try:
        page = player.page
        assert page.evaluate("() => game.system.id") == "dnd5e"
        sheet = _item_sheet(page, OFFICER, "Silk Vest")  # Player 1 owns the rifleman only
        tab = sheet.locator(".firefight-item")
        assert tab.locator("input, select").count() > 0
        assert tab.locator("input:enabled, select:enabled").count() == 0
        _close_all(page)
        own = _item_sheet(page, RIFLEMAN, RIFLE).locator(".firefight-item")
        assert own.locator("input:enabled, select:enabled").count() > 0
        assert player.errors == []
    finally:
        player.context.close()
