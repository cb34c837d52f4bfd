"""The whole outcome before the roll (issue 15 ★) and the dialog fixes of issues 15 and 16, as a
person meets them: the Shoot and action dialogs list every outcome with its exact chance and every
modifier with its source (a table with headers), live as options change, in every ruleset; soe's
Table 10 rows only in worlds that use Table 10; a General Trauma shot carries the world's
RollTables to its card; a second Shoot brings the open dialog forward instead of opening another.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _js import AIM_JS, REAL_DICE_JS, SCRIPTED_DICE_JS, SETTLED_JS
from conftest import Table
from test_actions_soe import open_table

RIFLEMAN = "Rifleman Aldo Ferri"
RHINO = "Lesser Venusian Rhino"
DIALOG = "dialog.application .firefight-shot"
# What the dialog shows now: outcome rows, modifier rows, notes, the headers of its tables.
BREAKDOWN_JS = """() => {
    const d = [...document.querySelectorAll('dialog.application')].at(-1);
    const rows = (sel) => [...d.querySelectorAll(sel)];
    return {
        outcomes: rows('.ff-outcomes tbody tr').map((r) => ({ key: r.dataset.outcome,
            p: Number(r.dataset.probability), label: r.querySelector('th').textContent.trim(),
            pct: r.querySelector('td').textContent.trim(), exact: r.querySelector('td').title })),
        figures: rows('[data-figure-odds] caption').map((c) => c.textContent.trim()),
        modifiers: rows('.ff-modifiers tbody tr').map((r) => ({ key: r.dataset.modifier,
            label: r.querySelector('th').textContent.trim(),
            value: r.querySelector('td.ff-num').textContent.trim(),
            source: r.querySelector('.ff-source').textContent.trim() })),
        notes: rows('.ff-notes li').map((li) => li.textContent.trim()),
        headers: rows('.ff-breakdown thead th[scope=col]').map((h) => h.textContent.trim()),
        whyOpen: d.querySelector('[data-odds-why]')?.open ?? null,
        text: d.querySelector('.ff-breakdown')?.innerText ?? '',
    };
}"""
CHANGED_JS = """(old) => {
    const o = document.querySelector('[data-firefight-odds]');
    return o && !o.classList.contains('pending') && o.dataset.probability !== old;
}"""
PROBABILITY_JS = "() => document.querySelector('[data-firefight-odds]').dataset.probability"
PACKS = Path(__file__).resolve().parents[2] / "packs" / "_source"


def _aim(table: Table, shooter: str, target: str) -> None:
    table.reset()
    table.token(shooter).click()
    table.token(target).click(button="right")


def _open_shoot(page: Any) -> dict[str, Any]:
    page.click("#shoot-button")
    page.wait_for_selector(DIALOG)
    page.wait_for_function(SETTLED_JS, timeout=60000)
    return dict(page.evaluate(BREAKDOWN_JS))


def _close(page: Any) -> None:
    page.evaluate("""() => document.querySelectorAll('dialog.application [data-action=close]')
        .forEach((b) => b.click())""")


def _check_outcomes(seen: dict[str, Any], prefix: str) -> None:
    """Every outcome named in words (no raw key), its chance in percent with the exact fraction as
    a tooltip, exclusive outcomes summing to 1; table headers, not colour only."""
    outcomes = seen["outcomes"]
    assert len(outcomes) >= 2, outcomes
    assert all(o["key"].startswith(prefix) for o in outcomes), outcomes
    assert not any("FIREFIGHT." in o["label"] for o in outcomes), outcomes
    assert all(o["pct"].endswith("%") for o in outcomes), outcomes
    assert all(o["exact"].startswith("exactly ") and "/" in o["exact"] for o in outcomes), outcomes
    assert abs(sum(o["p"] for o in outcomes) - 1) < 1e-9
    assert {"Outcome", "Chance"} <= set(seen["headers"])
    assert "FIREFIGHT." not in seen["text"]


# --- soe: the default table -------------------------------------------------------------------


def test_shot_dialog_lists_every_outcome_and_modifier_live(ready_table: Table) -> None:
    page = ready_table.page
    _aim(ready_table, RIFLEMAN, RHINO)
    seen = _open_shoot(page)
    _check_outcomes(seen, "FIREFIGHT.soe.odds.")
    assert {o["label"] for o in seen["outcomes"]} >= {"Miss", "Hit, no injury"}
    # Why: open on first use; each modifier's signed value and rule, labelled as on the card.
    assert seen["whyOpen"] is True
    assert {"Modifier", "Value", "Source"} <= set(seen["headers"])
    mods = {m["key"]: m for m in seen["modifiers"]}
    assert "FIREFIGHT.soe.mod.mode.aimed" in mods
    assert all(re.fullmatch(r"[+-]\d+(\.\d+)?|0", m["value"]) for m in seen["modifiers"]), mods
    assert mods["FIREFIGHT.soe.mod.mode.aimed"]["label"].startswith("Aimed")
    assert all(m["source"].startswith("soe ") for m in seen["modifiers"])
    ready_table.shot("70-outcomes-soe")
    # Live: another mode, another modifier and other chances.
    before = page.evaluate(PROBABILITY_JS)
    page.select_option('select[name="opt.options.mode"]', label="Quickfire")
    page.wait_for_function(CHANGED_JS, arg=before, timeout=60000)
    after = page.evaluate(BREAKDOWN_JS)
    keys = {m["key"] for m in after["modifiers"]}
    assert "FIREFIGHT.soe.mod.mode.aimed" not in keys
    assert any(".quickfire" in k for k in keys), keys
    assert after["outcomes"] != seen["outcomes"]
    # Closing "Why" is remembered: the next dialog opens with it closed, and it opens again.
    page.locator("[data-odds-why] summary").click()
    _close(page)
    assert _open_shoot(page)["whyOpen"] is False
    page.locator("[data-odds-why] summary").click()
    _close(page)
    assert _open_shoot(page)["whyOpen"] is True
    _close(page)


def test_dialog_fits_a_1280_by_720_window(ready_table: Table) -> None:
    page = ready_table.page
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        _aim(ready_table, RIFLEMAN, RHINO)
        _open_shoot(page)
        box = page.locator("dialog.application").last.bounding_box()
        assert box is not None
        assert box["y"] >= 0, box
        assert box["y"] + box["height"] <= 720, box
        fire = page.locator('dialog.application button[data-action="fire"]')
        fire_box = fire.bounding_box()
        assert fire_box is not None
        assert fire_box["y"] + fire_box["height"] <= 720
        ready_table.shot("71-outcomes-1280x720")
        _close(page)
    finally:
        page.set_viewport_size({"width": 1440, "height": 860})


def test_a_second_shoot_brings_the_open_dialog_forward(ready_table: Table) -> None:
    page = ready_table.page
    _aim(ready_table, RIFLEMAN, RHINO)
    _open_shoot(page)
    page.click("#shoot-button")  # the panel's button again
    page.click("#step-range")  # out of the dialog: the key is the table's again
    page.keyboard.press("Shift+F")  # the Shoot keybinding
    page.wait_for_timeout(300)
    assert page.locator(DIALOG).count() == 1
    # ... and the focus is in it, ready to fire.
    assert page.evaluate("() => !!document.activeElement?.closest('dialog.application')")
    page.locator('dialog.application button[data-action="cancel"]').click()
    page.locator(DIALOG).wait_for(state="detached")
    # Closed, Shoot opens it again.
    page.click("#shoot-button")
    page.wait_for_selector(DIALOG)
    assert page.locator(DIALOG).count() == 1
    _close(page)


def _visibility_choices(page: Any) -> list[str]:
    return list(page.evaluate("""() => [...document.querySelectorAll(
        'dialog.application select[name="opt.options.visibility"] option')]
        .map((o) => o.textContent)"""))


def test_table_10_rows_only_in_a_world_that_uses_table_10(ready_table: Table) -> None:
    page = ready_table.page
    _aim(ready_table, RIFLEMAN, RHINO)
    labels = json.loads((Path(__file__).resolve().parents[2] / "lang" / "en.json").read_text())
    rows = labels["FIREFIGHT"]["soe"]["opt"]["visibility"]["choices"]
    try:
        page.evaluate("() => game.settings.set('firefight', 'soe.visibility_table', 'table1')")
        _open_shoot(page)
        table1 = _visibility_choices(page)
        assert len(table1) == 6
        assert rows["office"] not in table1
        assert rows["indoors"] in table1
        _close(page)
        page.evaluate("() => game.settings.set('firefight', 'soe.visibility_table', 'table10')")
        _open_shoot(page)
        table10 = _visibility_choices(page)
        assert len(table10) == 10
        assert rows["office"] in table10
        assert rows["indoors"] not in table10
        # A Table 10 row is a valid shot there: the odds settle on a chance, not an error.
        page.select_option('select[name="opt.options.visibility"]', label=rows["office"])
        page.wait_for_function(SETTLED_JS, timeout=60000)
        assert page.locator("[data-firefight-odds].error").count() == 0
        _close(page)
    finally:
        page.evaluate("() => game.settings.set('firefight', 'soe.visibility_table', 'table1')")


# The world's General Trauma RollTables, one per class, with the referee's own texts (the sandbox
# has no RollTable documents: these carry what v13's RollTable and TableResult documents do).
TABLES_JS = """(docs) => {
    const tables = docs.map((d) => ({ id: d._id, name: d.name, flags: d.flags,
        results: { contents: d.results.map((r) => ({ range: r.range,
            text: `Referee: ${d.flags.firefight.soe.trauma_class} effect ${r.range[0]}` })) } }));
    globalThis.__tables = game.tables;
    game.tables = tables;
}"""
TRAUMA_CARD_JS = """() => {
    const m = game.messages.contents.at(-1);
    return { html: m.content, tables: m.flags.firefight.request.trauma_tables ?? null,
             injury: m.flags.firefight.result.outcome };
}"""


def test_general_trauma_shot_shows_the_world_table_text(ready_table: Table) -> None:
    page = ready_table.page
    docs = [json.loads(p.read_text()) for p in sorted((PACKS / "soe-trauma").glob("*.json"))]
    assert len(docs) == 7
    _aim(ready_table, RIFLEMAN, RHINO)
    page.evaluate(TABLES_JS, docs)
    page.evaluate("() => game.settings.set('firefight', 'soe.injury_mode', 'general_trauma')")
    try:
        page.evaluate(SCRIPTED_DICE_JS)  # the shooter high, the target low: a sure trauma
        before = page.evaluate("() => game.messages.size")
        _open_shoot(page)
        page.click('dialog.application button[data-action="fire"]')
        page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
        card = page.evaluate(TRAUMA_CARD_JS)
        assert card["tables"] is not None
        assert len(card["tables"]) == 7
        shown = page.locator(".chat-message").last.inner_text()
        assert "Referee: " in shown, shown
        assert "placeholder" not in shown.lower()
        ready_table.shot("72-general-trauma-card")
    finally:
        page.evaluate(REAL_DICE_JS)
        page.evaluate("() => { game.tables = globalThis.__tables; }")
        page.evaluate("() => game.settings.set('firefight', 'soe.injury_mode', 'hit_points')")


# --- the other rulesets ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pct_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "percentile", "percentile-actors")
    yield t
    t.context.close()


def test_percentile_dialog_says_why_facing_made_it_hasty_fire(pct_table: Table) -> None:
    page = pct_table.page
    shooter, target = "Corporal Ada Kowalski", "Grenadier Karl Vogt"
    page.evaluate(AIM_JS, [shooter, target])
    seen = _open_shoot(page)
    _check_outcomes(seen, "FIREFIGHT.percentile.odds.")
    assert {o["key"].rsplit(".", 1)[1] for o in seen["outcomes"]} >= {"miss", "hit", "kill"}
    assert not any("outside" in n for n in seen["notes"])
    _close(page)
    # ] ] ] ] turns the shooter about: the target is behind him, and the dialog says so.
    page.locator("#scene").hover(position={"x": 5, "y": 5})
    for _ in range(4):
        page.keyboard.press("]")
    page.wait_for_function("""(n) => canvas.tokens.placeables.find((t) => t.name === n)
        .document.rotation === 180""", arg=shooter)
    seen = _open_shoot(page)
    assert any("outside the normal arc" in n for n in seen["notes"]), seen["notes"]
    assert any(m["key"].endswith("_arc") and "Hasty fire" in m["label"] for m in seen["modifiers"])
    assert page.locator('input[name="opt.options.hasty_fire"]').is_checked() is False
    pct_table.shot("73-outcomes-percentile-hasty")
    _close(page)


@pytest.fixture(scope="module")
def shock_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "shock", "shock-troops")
    yield t
    t.context.close()


def test_shock_dialog_lists_stun_wound_shock_death(shock_table: Table) -> None:
    page = shock_table.page
    names = page.evaluate("() => canvas.tokens.placeables.map((t) => t.name)")
    page.evaluate(AIM_JS, [names[0], names[-1]])
    seen = _open_shoot(page)
    _check_outcomes(seen, "FIREFIGHT.shock.odds.")
    assert {o["key"].rsplit(".", 1)[1] for o in seen["outcomes"]} >= {"stun", "wound", "shock",
                                                                      "death"}
    shock_table.shot("74-outcomes-shock")
    _close(page)


@pytest.fixture(scope="module")
def dpv_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "dpv", "dpv-npcs")
    yield t
    t.context.close()


AIM_MANY_JS = """([a, bs]) => {
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
    canvas.tokens.releaseAll();
    for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
    by(a).control();
    for (const b of bs) by(b).setTarget(true, {releaseOthers: false});
}"""


def test_dpv_shot_and_area_fire_show_outcomes_per_figure(dpv_table: Table) -> None:
    page = dpv_table.page
    shooter, *others = page.evaluate("() => canvas.tokens.placeables.map((t) => t.name)")
    page.evaluate(AIM_JS, [shooter, others[0]])
    seen = _open_shoot(page)
    _check_outcomes(seen, "FIREFIGHT.dpv.odds.")
    assert seen["modifiers"]
    _close(page)
    # Area fire at two figures: one outcome table per figure, named.
    page.evaluate(AIM_MANY_JS, [shooter, others[:2]])
    page.evaluate("() => { game.modules.get('firefight').api.act('area_fire'); }")
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    page.wait_for_function(SETTLED_JS, timeout=60000)
    seen = page.evaluate(BREAKDOWN_JS)
    assert seen["figures"] == others[:2]
    per_figure = len(seen["outcomes"]) // 2
    for i in range(2):
        rows = seen["outcomes"][i * per_figure:(i + 1) * per_figure]
        assert abs(sum(o["p"] for o in rows) - 1) < 1e-9
    # Live: a figure placed beyond the area changes its chances.
    first = seen["outcomes"]
    dialog.locator('select[name="place.1"]').select_option("beyond")
    page.wait_for_function(f"""() => JSON.stringify(({BREAKDOWN_JS})().outcomes)
        !== {json.dumps(json.dumps(first))}""", timeout=60000)
    dpv_table.shot("75-outcomes-dpv-area-fire")
    _close(page)


# Each "Why" table: its step's name, its rows' values and the total under them.
WHY_TABLES_JS = """() => [...[...document.querySelectorAll('dialog.application')].at(-1)
    .querySelectorAll('.ff-modifiers')].map((t) => ({
        step: t.dataset.step, caption: t.querySelector('caption')?.textContent.trim() ?? '',
        values: [...t.querySelectorAll('tbody td.ff-num')].map((td) =>
            Number(td.textContent.trim().replace('\u2212', '-').replace('+', ''))),
        total: Number(t.querySelector('tfoot td.ff-num').dataset.total),
        shown: t.querySelector('tfoot td.ff-num').textContent.trim() }))"""


def test_why_groups_its_rows_by_step_with_totals_that_add_up(ready_table: Table) -> None:
    """UX walkthrough 3 #4 (issue 25 item 3): soe's to-hit and to-damage modifiers are not one
    list under one net figure: each step has its own table, named in words, whose total is the
    sum of its rows."""
    page = ready_table.page
    _aim(ready_table, RIFLEMAN, RHINO)
    _open_shoot(page)
    tables = page.evaluate(WHY_TABLES_JS)
    assert [t["step"] for t in tables] == ["to_hit", "to_damage"], tables
    for table in tables:
        assert table["caption"], table
        assert "_" not in table["caption"], table
        assert table["total"] == sum(table["values"]), table
        assert table["shown"].lstrip("+") == str(table["total"]), table
    assert "net modifier" not in page.locator("[data-odds-detail]").inner_text()
    _close(page)


def test_a_shot_of_several_rolls_says_its_chance_is_per_roll(pct_table: Table) -> None:
    """UX walkthrough 3 #4: "Hit chance 21 %" beside "Miss 30.8 %" was one per roll and one for
    the rolls fired; the dialog now says so."""
    page = pct_table.page
    page.evaluate(AIM_JS, ["Grenadier Karl Vogt", "Corporal Ada Kowalski"])
    _open_shoot(page)
    detail = page.locator("[data-odds-detail]").inner_text()
    found = re.search(r"per roll; this shot makes (\d+) rolls", detail)
    assert found, detail
    assert int(found.group(1)) > 1, detail
    for table in page.evaluate(WHY_TABLES_JS):
        assert table["total"] == sum(table["values"]), table
    _close(page)


# A module's handler, as docs/extending.md shows one: every soe shot is quickfire.
QUICKFIRE_HOOK_JS = """() => { globalThis.__quick = Hooks.on('firefight.preRequest', (request) => {
    if (request.ruleset === 'soe' && request.action === 'attack') {
        request.options.mode = 'quickfire';
    }
}); }"""
UNHOOK_JS = "() => Hooks.off('firefight.preRequest', globalThis.__quick)"


def test_a_pre_request_handlers_change_is_in_the_dialogs_odds(ready_table: Table) -> None:
    """Issue 26 item 1: the request the odds are computed for is the request that is rolled; a
    firefight.preRequest handler's change shows in the dialog, and the card's chance is the
    dialog's."""
    page = ready_table.page
    _aim(ready_table, RIFLEMAN, RHINO)
    plain = _open_shoot(page)
    plain_p = page.evaluate(PROBABILITY_JS)
    _close(page)
    page.evaluate(QUICKFIRE_HOOK_JS)
    try:
        hooked = _open_shoot(page)
        hooked_p = page.evaluate(PROBABILITY_JS)
        assert hooked_p != plain_p
        assert any(".quickfire" in m["key"] for m in hooked["modifiers"]), hooked["modifiers"]
        before = page.evaluate("() => game.messages.size")
        page.click('dialog.application button[data-action="fire"]')
        page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
        card = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.result")
        assert card["request"]["options"]["mode"] == "quickfire"
        assert abs(card["odds"]["probability"] - float(hooked_p)) < 1e-12
    finally:
        page.evaluate(UNHOOK_JS)
    assert plain["outcomes"]


def test_the_dialog_offers_to_turn_a_shooter_who_faces_away(pct_table: Table) -> None:
    """UX walkthrough 3 #12 (issue 25 item 9): a token dropped on the scene faces south, so the
    first shot along a row was hasty fire with the Hasty box unchecked. The dialog says that
    facing made the difference and turns the shooter when asked."""
    page = pct_table.page
    shooter, target = "Grenadier Karl Vogt", "Lieutenant Ruth Vance"
    page.evaluate(AIM_JS, [shooter, target])
    _open_shoot(page)
    facing = page.locator("[data-firefight-facing]")
    facing.wait_for()
    assert shooter in facing.inner_text()
    offered = re.search(r"would be ([\d.,]+)", facing.inner_text())
    assert offered, facing.inner_text()
    before = page.evaluate(PROBABILITY_JS)
    facing.locator('[data-firefight-action="face-target"]').click()
    page.wait_for_function(CHANGED_JS, arg=before, timeout=60000)
    after = float(page.evaluate(PROBABILITY_JS))
    assert after > float(before)
    assert f"{after * 100:.1f}" == offered.group(1).replace(",", ".")
    assert facing.is_hidden()
    _close(page)
