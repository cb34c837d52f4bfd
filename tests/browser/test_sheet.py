"""Actor data at the table: the Firefight tab on actor sheets (generated from the ruleset's
stats schema, validated by the engine), and the compendium sidebar: armor dragged onto an actor
is owned, equipped and counted by the next shot; a creature dragged onto the scene becomes an
actor with its stats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _js import AIM_JS, REAL_DICE_JS, SCRIPTED_DICE_JS
from conftest import BOOT_TIMEOUT_MS, open_sheet_from_directory

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
NED_KELLY = '"Ned Kelly"-Style Armor (Table 6)'
WOLF = "Wolf (Table 7)"



def _shoot(page: Any, shooter: str, target: str) -> str:
    page.evaluate(AIM_JS, [shooter, target])
    page.evaluate(SCRIPTED_DICE_JS)
    try:
        mid = page.evaluate(
            "async () => (await game.modules.get('firefight').api.shoot({dialog: false}))?.id"
        )
    finally:
        page.evaluate(REAL_DICE_JS)
    assert mid
    return str(mid)


def _to_damage_text(page: Any, mid: str) -> str:
    details = page.locator(f'[data-message-id="{mid}"] .ff-card-details')
    if details.get_attribute("open") is None:
        details.locator(".ff-details-toggle").click()
    step = page.locator(f'[data-message-id="{mid}"] .ff-step', has_text="to-damage").first
    return str(step.inner_text())


KEEP_SELECTION_JS = """(ids) => { for (const t of canvas.tokens.placeables) {
    if (ids.includes(t.id)) t.control({releaseOthers: false}); else t.release(); } }"""


def _open_sheet(table: Any, name: str) -> Any:
    """As a person does: double-click the actor's token (Foundry opens its sheet); the tokens
    selected before stay selected, so the test's shots go on as they were aimed."""
    selected = table.page.evaluate("() => canvas.tokens.controlled.map(t => t.id)")
    table.token(name).dblclick()
    table.page.evaluate(KEEP_SELECTION_JS, selected)
    sheet = table.page.locator("section.actor-sheet", has_text=name).last
    sheet.wait_for()
    return sheet


def test_sheet_has_a_firefight_tab_generated_from_the_stats_schema(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    sheet = _open_sheet(ready_table, OFFICER)
    sheet.locator("nav .firefight-tab").click()
    tab = sheet.locator(".firefight-sheet")
    assert tab.is_visible()
    assert tab.locator('[name="opt.marksmanship"]').input_value() == str(
        page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe.marksmanship", OFFICER)
    )
    assert tab.locator(".ff-sheet-armor li").count() >= 1
    ready_table.shot("20-sheet-tab")
    # A changed field saves (Tab leaves it), validated, as the system's own fields do.
    tab.locator('[name="opt.marksmanship"]').fill("15")
    tab.locator('[name="opt.marksmanship"]').press("Tab")
    page.wait_for_function(
        "(n) => game.actors.getName(n).flags.firefight.soe.marksmanship === 15", arg=OFFICER
    )
    # Bad data is refused with the actor and the field named; nothing is written.
    tab = sheet.locator(".firefight-sheet")
    tab.locator('[name="opt.marksmanship"]').fill("999")
    tab.locator('[name="opt.marksmanship"]').press("Tab")
    error = tab.locator("[data-firefight-error]")
    error.wait_for()
    assert OFFICER in error.inner_text()
    assert "Marksmanship" in error.inner_text()  # by its label
    assert (
        page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe.marksmanship", OFFICER)
        == 15
    )
    ready_table.shot("21-sheet-invalid")
    sheet.locator('[data-action="close"]').first.click()


def test_dragging_armor_onto_an_actor_changes_the_next_to_damage_line(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    before = _to_damage_text(page, _shoot(page, RIFLEMAN, OFFICER))
    assert "Ned Kelly" not in before
    sheet = _open_sheet(ready_table, OFFICER)
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    pack = '.compendium-pack[data-pack="soe-armor-worldbuilding"]'  # the world's system's
    page.locator(f"{pack} summary").click()
    entry = page.locator(f"{pack} .compendium-entry", has_text="Ned Kelly")
    entry.wait_for()
    ready_table.shot("22-compendium")
    entry.drag_to(sheet.locator(".window-content"))
    page.wait_for_function(
        """(n) => game.actors.getName(n).items.some(
        (i) => i.name.includes('Ned Kelly') && i.flags.firefight.equipped === true)""",
        arg=OFFICER,
    )
    sheet.locator('[data-action="close"]').first.click()
    page.click('#sidebar-tabs [data-sidebar-tab="chat"]')
    after = _to_damage_text(page, _shoot(page, RIFLEMAN, OFFICER))
    assert "Ned Kelly" in after
    assert after != before
    ready_table.shot("23-armor-counted")


def test_a_creature_from_the_bestiary_becomes_an_actor_with_its_stats(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    pack = '.compendium-pack[data-pack="soe-bestiary-worldbuilding"]'  # the world's system's
    page.locator(f"{pack} summary").click()
    entry = page.locator(f"{pack} .compendium-entry", has_text="Wolf")
    entry.wait_for()
    box = page.locator("#scene").bounding_box()
    entry.drag_to(
        page.locator("#scene"), target_position={"x": box["width"] * 0.5, "y": box["height"] * 0.5}
    )
    page.wait_for_function("(n) => Boolean(game.actors.getName(n))", arg=WOLF)
    ready_table.token("Wolf").wait_for()  # the token takes its prototype's name
    stats = page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe", WOLF)
    assert stats["kind"] == "creature"
    assert stats["hp_max"] > 0
    # It can be shot at at once.
    mid = _shoot(page, RIFLEMAN, "Wolf")
    target = page.evaluate("(id) => game.messages.get(id).flags.firefight.request.target", mid)
    assert target["stats"] == stats
    page.click('#sidebar-tabs [data-sidebar-tab="chat"]')
    ready_table.shot("24-bestiary")


def test_token_hud_button_shoots_with_that_token(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    ready_table.token(RIFLEMAN).click()
    ready_table.token(OFFICER).click(button="right")
    ready_table.token(RIFLEMAN).click(button="right")  # own selected token: its HUD
    button = page.locator('#token-hud .col.right [data-firefight-action="shoot"]')
    button.wait_for()
    ready_table.shot("25-token-hud")
    button.click()
    page.wait_for_selector("dialog.application .firefight-shot")
    assert RIFLEMAN in page.locator("dialog.application .ff-matchup").inner_text()
    page.click('dialog.application button[data-action="cancel"]')


def test_bad_actor_data_is_reported_with_the_actor_named(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    page.evaluate(
        "(n) => game.actors.getName(n).update({'flags.firefight.soe.hp_max': -5})", OFFICER
    )
    try:
        page.evaluate(AIM_JS, [RIFLEMAN, OFFICER])
        out = page.evaluate("() => game.modules.get('firefight').api.shoot({dialog: false})")
        assert out is None
        note = page.locator(".notification.error").last
        note.wait_for()
        assert f"{OFFICER} — Maximum hit points" in note.inner_text()  # the field by its label
        # The sheet says so too; the table keeps running.
        sheet = _open_sheet(ready_table, OFFICER)
        sheet.locator("nav .firefight-tab").click()
        error = sheet.locator(".firefight-sheet [data-firefight-error]")
        error.wait_for()
        assert OFFICER in error.inner_text()
        ready_table.shot("26-bad-data")
        sheet.locator('[data-action="close"]').first.click()
    finally:
        page.evaluate(
            "(n) => game.actors.getName(n).update({'flags.firefight.soe.hp_max': 8})", OFFICER
        )
    assert page.evaluate(SHOOT_ID_JS) is not None


SHOOT_ID_JS = "async () => (await game.modules.get('firefight').api.shoot({dialog: false}))?.id"


# Every Firefight field on the sheet against the actor's data: the fields that differ.
STALE_FIELDS_JS = """([name, rs]) => {
    const stats = game.actors.getName(name).flags.firefight[rs];
    const sheet = [...document.querySelectorAll('section.actor-sheet')]
        .find(s => s.textContent.includes(name));
    const stale = [];
    for (const el of sheet.querySelectorAll('.firefight-sheet input[name^="opt."]')) {
        const v = stats[el.name.slice(4)];
        if (v === undefined || v === null) continue;
        const shown = el.type === 'checkbox' ? el.checked : el.value;
        const want = el.type === 'checkbox' ? Boolean(v) : String(v);
        if (shown !== want) stale.push([el.name, shown, want]);
    }
    return stale;
}"""


def _tab_is_there_and_active(sheet: Any) -> None:
    link = sheet.locator("nav .firefight-tab")
    assert link.count() == 1
    assert link.is_visible()
    assert "active" in (link.get_attribute("class") or "")
    assert sheet.locator(".firefight-sheet").count() == 1
    assert sheet.locator(".firefight-sheet").is_visible()


@pytest.mark.parametrize("system", ["worldbuilding", "dnd5e"])
def test_the_firefight_tab_survives_re_renders_with_fresh_values(
        server: str, open_page: Callable[..., Any], system: str) -> None:
    """Open the sheet as a person does, switch to the Firefight tab, save, be hit: each time the
    sheet renders again (dnd5e: part by part), the tab is still there, active, and current."""
    page, _, errors = open_page(f"{server}?system={system}")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    sheet = open_sheet_from_directory(page, OFFICER)
    _tab_is_there_and_active(sheet)
    # The sheet's own tab state follows (ApplicationV2#changeTab; dnd5e keys its layout on it).
    assert page.evaluate("(n) => game.actors.getName(n).sheet.tabGroups.primary",
                         OFFICER) == "firefight"
    renders = page.evaluate("(n) => game.actors.getName(n).sheet.renders ?? null", OFFICER)
    # A changed field saves: the actor is updated and its sheet renders again.
    field = sheet.locator('.firefight-sheet [name="opt.marksmanship"]')
    value = 15 if field.input_value() == "14" else 14
    field.fill(str(value))
    field.press("Tab")
    page.wait_for_function(
        "([n, v]) => game.actors.getName(n).flags.firefight.soe.marksmanship === v",
        arg=[OFFICER, value])
    if renders is not None:  # the parts sheet counts its renders
        page.wait_for_function("([n, r]) => game.actors.getName(n).sheet.renders > r",
                               arg=[OFFICER, renders])
    _tab_is_there_and_active(sheet)
    assert sheet.locator('.firefight-sheet [name="opt.marksmanship"]').input_value() == str(value)
    # Hit by a shot whose damage is applied: the sheet shows the officer's new data.
    before = page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe", OFFICER)
    mid = _shoot(page, RIFLEMAN, OFFICER)
    page.locator(f'[data-message-id="{mid}"] [data-firefight-action="apply-effects"]').click()
    page.wait_for_function("(id) => game.messages.get(id).flags.firefight.applied",
                           arg=mid, timeout=30000)
    after = page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe", OFFICER)
    assert after != before
    _tab_is_there_and_active(sheet)
    assert page.evaluate(STALE_FIELDS_JS, [OFFICER, "soe"]) == []
    # The sheet's own tabs still work, and ours again after them.
    sheet.locator('nav [data-tab="details"]').click()
    assert not sheet.locator(".firefight-sheet").is_visible()
    assert sheet.locator('.tab[data-tab="details"]').is_visible()
    sheet.locator("nav .firefight-tab").click()
    _tab_is_there_and_active(sheet)
    assert not sheet.locator('.tab[data-tab="details"]').is_visible()
    assert errors == []


def test_unsaved_edits_survive_a_redraw_and_are_saved_over_the_new_data(ready_table: Any) -> None:
    # A hit applied while the referee types redraws the sheet: the typed value stays, and leaving
    # the field saves it over the actor's new data (the hit kept).
    page = ready_table.page
    ready_table.reset()
    sheet = _open_sheet(ready_table, OFFICER)
    sheet.locator("nav .firefight-tab").click()
    sheet.locator('.firefight-sheet [name="opt.marksmanship"]').fill("17")
    page.evaluate("(n) => game.actors.getName(n).update({'flags.firefight.soe.hp': 3})", OFFICER)
    field = sheet.locator('.firefight-sheet [name="opt.marksmanship"]')
    page.wait_for_function("""() => document.querySelectorAll('.firefight-sheet').length > 0""")
    assert field.input_value() == "17"
    field.focus()
    page.keyboard.press("Tab")
    page.wait_for_function(
        "(n) => game.actors.getName(n).flags.firefight.soe.marksmanship === 17", arg=OFFICER)
    assert page.evaluate("(n) => game.actors.getName(n).flags.firefight.soe.hp", OFFICER) == 3
    # Saved: a later redraw shows the actor's data, not an old draft.
    page.evaluate("(n) => game.actors.getName(n).update({'flags.firefight.soe.hp': 8})", OFFICER)
    assert field.input_value() == "17"
    sheet.locator('[data-action="close"]').first.click()


WILL_JS = "(n) => game.actors.getName(n).flags.firefight.soe.will"


def test_a_field_saves_when_it_is_left_and_a_closed_sheet_keeps_no_unsaved_edit(
        ready_table: Any) -> None:
    """UX walkthrough 3 #1 (issue 25): the Firefight tab saves on change, as dnd5e's and pf2e's
    sheet fields do; closing the sheet right after typing keeps the edit; reopened, the sheet
    shows what the actor holds, never an edit that was not saved."""
    page = ready_table.page
    ready_table.reset()
    will = page.evaluate(WILL_JS, OFFICER)
    sheet = _open_sheet(ready_table, OFFICER)
    sheet.locator("nav .firefight-tab").click()
    field = sheet.locator('.firefight-sheet [name="opt.will"]')
    close = sheet.locator('[data-action="close"]').first.element_handle()
    field.fill(str(will - 1))
    page.keyboard.press("Tab")
    page.wait_for_function(f"(n) => ({WILL_JS})(n) === {will - 1}", arg=OFFICER)
    # The focus went on to the next field, though the save drew the tab again.
    assert page.evaluate("() => Boolean(document.activeElement?.closest('.firefight-sheet'))")
    # The save drew the sheet's content again, never its frame (ApplicationV2 renders the frame
    # once): a press on ✕ that saves a field is still a click on ✕ (CI: the sheet stayed open).
    assert close.evaluate("(button) => button.isConnected")
    # Typed, then the sheet closed at once (✕): the edit is kept.
    field.fill(str(will - 2))
    sheet.locator('[data-action="close"]').first.click()
    sheet.wait_for(state="detached")
    page.wait_for_function(f"(n) => ({WILL_JS})(n) === {will - 2}", arg=OFFICER)
    # A refused value is named and not kept: reopened, the sheet shows the actor's data.
    sheet = _open_sheet(ready_table, OFFICER)
    sheet.locator("nav .firefight-tab").click()
    field = sheet.locator('.firefight-sheet [name="opt.will"]')
    field.fill("999")
    field.press("Tab")
    sheet.locator("[data-firefight-error]").wait_for()
    sheet.locator('[data-action="close"]').first.click()
    sheet.wait_for(state="detached")
    assert page.evaluate(WILL_JS, OFFICER) == will - 2
    sheet = _open_sheet(ready_table, OFFICER)
    sheet.locator("nav .firefight-tab").click()
    assert sheet.locator('.firefight-sheet [name="opt.will"]').input_value() == str(will - 2)
    page.evaluate(f"(n) => game.actors.getName(n).update({{'flags.firefight.soe.will': {will}}})",
                  OFFICER)
    sheet.locator('[data-action="close"]').first.click()
    assert ready_table.errors == []
