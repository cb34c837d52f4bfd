"""The table as several clients: a GM and two players, each in their own page of one browser
context (the sandbox keeps them in step like Foundry's server). A player cannot update an actor
they do not own, so results go through the GM over the module socket; the GM checks each request
against the real chat message, applies it once, and can undo it exactly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _js import AIM_JS, REAL_DICE_JS, SCRIPTED_DICE_JS
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
RHINO = "Lesser Venusian Rhino"
USERS = ("Gamemaster", "Player 1", "Player 2")

SHOOT_JS = (
    "async () => (await game.modules.get('firefight').api.shoot({dialog: false}))?.id ?? null"
)
# The actor's data and statuses; its apply records (`applied`, kept for Undo) are checked apart.
STATE_JS = """(name) => {
    const a = game.actors.getName(name);
    const {applied, ...flags} = a.flags.firefight;
    return {flags, statuses: [...a.statuses].sort()};
}"""
HP_JS = """(name) => {
    const soe = game.actors.getName(name).flags.firefight.soe;
    return soe.hp ?? soe.hp_max;
}"""
FLAGS_OF_JS = "(id) => game.messages.get(id)?.flags.firefight ?? null"
RECORD_JS = "([name, id]) => game.actors.getName(name).flags.firefight.applied?.[id] ?? null"


class Tables:
    def __init__(self, pages: dict[str, Table]) -> None:
        self.pages = pages
        self.gm = pages["Gamemaster"]
        self.p1 = pages["Player 1"]
        self.p2 = pages["Player 2"]

    def shoot(self, table: Table, shooter: str, target: str) -> str:
        page = table.page
        page.evaluate(AIM_JS, [shooter, target])
        page.evaluate(SCRIPTED_DICE_JS)
        try:
            mid = page.evaluate(SHOOT_JS)
        finally:
            page.evaluate(REAL_DICE_JS)
        assert mid, "the shot posted no message"
        return str(mid)

    def loss(self, mid: str, side: str = "target") -> int:
        result = self.gm.page.evaluate(FLAGS_OF_JS, mid)["result"]
        return -sum(
            e["delta"] for e in result["effects"] if e["kind"] == "hp" and e["target"] == side
        )

    def wait_all(self, js: str, arg: Any = None) -> None:
        for t in self.pages.values():
            t.page.wait_for_function(js, arg=arg, timeout=30000)

    def set_auto_apply(self, on: bool) -> None:
        self.gm.page.evaluate("(on) => game.settings.set('firefight', 'autoApply', on)", on)
        self.wait_all("(on) => game.settings.get('firefight', 'autoApply') === on", on)

    def set_gm_rolls(self, on: bool) -> None:
        """The world setting "The GM's client rolls players' shots", seen by every page."""
        self.gm.page.evaluate("(on) => game.settings.set('firefight', 'gmRollsShots', on)", on)
        self.wait_all("(on) => game.settings.get('firefight', 'gmRollsShots') === on", on)

    def shoot_by_clicks(self, shooter: str, target: str) -> str:
        """Player 1 shoots as a person does (select, target, Shoot, Fire); the dice score a hit
        on whichever client rolls. Returns the new message's id, once every page has it."""
        gm, p1 = self.gm.page, self.p1.page
        count = p1.evaluate("() => game.messages.size")
        self.p1.reset()
        self.p1.token(shooter).click()
        self.p1.token(target).click(button="right")
        p1.locator("#shoot-button").click()
        dialog = p1.locator("dialog.application.firefight-dialog")
        dialog.locator("[data-odds-value]").filter(has_text="%").wait_for()
        gm.evaluate(SCRIPTED_DICE_JS)
        p1.evaluate(SCRIPTED_DICE_JS)
        try:
            dialog.locator('button[data-action="fire"]').click()
            p1.wait_for_function("(n) => game.messages.size > n", arg=count)
        finally:
            gm.evaluate(REAL_DICE_JS)
            p1.evaluate(REAL_DICE_JS)
        mid: str = p1.evaluate("() => game.messages.contents.at(-1).id")
        self.wait_all("(id) => Boolean(game.messages.get(id))", mid)
        return mid


def open_tables(server: str, browser: Any) -> Iterator[Tables]:
    """The GM, Player 1 and Player 2, each in their own page of one new browser context."""
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 860})
    pages: dict[str, Table] = {}
    for user in USERS:
        page = context.new_page()
        t = Table(server, context, page)
        page.on("pageerror", lambda e, t=t: t.errors.append(str(e)))
        page.on(
            "console", lambda m, t=t: t.console_errors.append(m.text) if m.type == "error" else None
        )
        t.warnings = []  # type: ignore[attr-defined]
        page.on(
            "console", lambda m, t=t: t.warnings.append(m.text) if m.type == "warning" else None
        )
        page.goto(f"{server}?user={user.replace(' ', '%20')}")
        pages[user] = t
    for t in pages.values():
        t.page.wait_for_function("() => game.ready === true", timeout=30000)
    for t in pages.values():
        t.page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield Tables(pages)
    context.close()


@pytest.fixture(scope="module")
def tables(server: str, browser: Any) -> Iterator[Tables]:
    yield from open_tables(server, browser)


def test_every_page_is_its_own_user(tables: Tables) -> None:
    names = {u: t.page.evaluate("() => game.user.name") for u, t in tables.pages.items()}
    assert names == {u: u for u in USERS}
    assert tables.p1.page.evaluate("() => game.users.activeGM?.name") == "Gamemaster"
    # A player may not update an actor they do not own (the sandbox refuses, as Foundry's server).
    refused = tables.p1.page.evaluate(f"""async () => {{
        const rhino = game.actors.getName('{RHINO}');
        try {{ await rhino.update({{'flags.firefight.soe.hp': 1}}); return null; }}
        catch (e) {{ return e.message; }} }}""")
    assert refused
    assert "lacks permission" in refused


def test_player_shot_is_applied_by_the_gm(tables: Tables) -> None:
    tables.set_auto_apply(False)
    before = tables.gm.page.evaluate(HP_JS, RHINO)
    mid = tables.shoot(tables.p1, RIFLEMAN, RHINO)
    loss = tables.loss(mid)
    assert loss > 0
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    # The shooter presses Apply; the GM's client applies it and records it on the message.
    card = tables.p1.page.locator(f'[data-message-id="{mid}"]')
    card.locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - loss}")
    applied = tables.gm.page.evaluate(FLAGS_OF_JS, mid)["applied"]
    assert applied["by"] == "sandboxPlayer001"
    (summary,) = applied["actors"].values()
    assert summary["name"] == RHINO
    # The record Undo uses is kept on the actor, written by the GM.
    record = tables.gm.page.evaluate(RECORD_JS, [RHINO, mid])
    assert record["by"] == "sandboxPlayer001"
    assert record["gm"] == "sandboxGamemastr"
    assert record["before"]["hp"] == before or (before == 65 and "hp" in record["before"])
    assert record["after"]["hp"] == before - loss
    tables.p1.page.locator(f'[data-message-id="{mid}"] .ff-applied-state').wait_for()
    assert (
        "Player 1"
        in tables.p1.page.locator(f'[data-message-id="{mid}"] .ff-applied-state').inner_text()
    )
    # Only the GM sees Undo.
    assert (
        tables.p1.page.locator(
            f'[data-message-id="{mid}"] [data-firefight-action="undo-effects"]'
        ).count()
        == 0
    )
    assert (
        tables.gm.page.locator(
            f'[data-message-id="{mid}"] [data-firefight-action="undo-effects"]'
        ).count()
        == 1
    )
    tables.p1.shot("10-player-applied")
    tables.gm.shot("11-gm-sees-applied")


def test_two_players_fire_at_once_and_both_land(tables: Tables) -> None:
    tables.set_auto_apply(True)
    try:
        before = tables.gm.page.evaluate(HP_JS, RHINO)
        for t, shooter in ((tables.p1, RIFLEMAN), (tables.p2, OFFICER)):
            t.page.evaluate(AIM_JS, [shooter, RHINO])
            t.page.evaluate(SCRIPTED_DICE_JS)
        # Both shots start before either is applied.
        for t in (tables.p1, tables.p2):
            t.page.evaluate(
                "() => { globalThis.__shot = "
                "game.modules.get('firefight').api.shoot({dialog: false}); }"
            )
        ids = [
            t.page.evaluate("async () => (await globalThis.__shot)?.id")
            for t in (tables.p1, tables.p2)
        ]
        for t in (tables.p1, tables.p2):
            t.page.evaluate(REAL_DICE_JS)
        assert all(ids)
        total = sum(tables.loss(m) for m in ids)
        assert total > 0
        tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - total}")
        for m in ids:
            assert tables.gm.page.evaluate(FLAGS_OF_JS, m)["applied"]
        tables.gm.shot("12-two-hits-landed")
    finally:
        tables.set_auto_apply(False)


def test_undo_restores_the_target_exactly(tables: Tables) -> None:
    gm = tables.gm.page
    state0 = gm.evaluate(STATE_JS, OFFICER)
    # The officer is shot dead: hit points, a dead state (condition) and the dead status.
    mid = tables.shoot(tables.gm, RIFLEMAN, OFFICER)
    assert tables.loss(mid) > 0
    gm.locator(f'[data-message-id="{mid}"] [data-firefight-action="apply-effects"]').click()
    gm.wait_for_function("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", arg=mid)
    hit = gm.evaluate(STATE_JS, OFFICER)
    assert hit != state0
    tables.gm.shot("13-before-undo")
    gm.locator(f'[data-message-id="{mid}"] [data-firefight-action="undo-effects"]').click()
    gm.wait_for_function("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", arg=mid)
    tables.wait_all("(id) => !game.messages.get(id).flags.firefight.applied", mid)
    for t in tables.pages.values():
        assert t.page.evaluate(STATE_JS, OFFICER) == state0
    flags = gm.evaluate(FLAGS_OF_JS, mid)
    assert "applied" not in flags
    # Undone once: no Undo any more (the API refuses it too); the GM may apply it again (Redo,
    # as dnd5e and Midi-QOL allow: issue 16), players get no button.
    card = gm.locator(f'[data-message-id="{mid}"]')
    assert card.locator('[data-firefight-action="undo-effects"]').count() == 0
    assert card.locator('[data-firefight-action="redo-effects"]').count() == 1
    for t in tables.pages.values():
        if t is not tables.gm:
            their = t.page.locator(f'[data-message-id="{mid}"]')
            their.locator('.ff-applied-state[data-state="undone"]').wait_for()
            assert their.locator("[data-firefight-action]").count() == 0
    again = gm.evaluate(f"() => game.modules.get('firefight').api.undo('{mid}')")
    assert again["ok"] is False
    assert gm.evaluate(STATE_JS, OFFICER) == state0
    tables.gm.shot("14-after-undo")
    # Redo applies it exactly as before; Undo again restores the officer exactly.
    card.locator('[data-firefight-action="redo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", mid)
    assert gm.evaluate(STATE_JS, OFFICER) == hit
    card.locator('[data-firefight-action="undo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", mid)
    for t in tables.pages.values():
        assert t.page.evaluate(STATE_JS, OFFICER) == state0


FORGE_JS = """([mid, hash]) => new Promise((resolve) => {
    const requestId = 'forged-' + Math.random();
    game.socket.on('module.firefight', (d) => { if (d.requestId === requestId) resolve(d.reply); });
    game.socket.emit('module.firefight',
        {type: 'apply', requestId, payload: {messageId: mid, hash}});
})"""


def test_forged_and_replayed_requests_are_refused(tables: Tables) -> None:
    gm, p1 = tables.gm, tables.p1.page
    tables.set_auto_apply(False)
    mid = tables.shoot(tables.p1, RIFLEMAN, RHINO)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    before = gm.page.evaluate(HP_JS, RHINO)
    warnings = len(gm.warnings)  # type: ignore[attr-defined]
    # A changed result: the hash of a result with more damage than the message holds.
    forged_hash = p1.evaluate(
        """async (mid) => {
        const { resultHash } = await import('/modules/firefight/js-shim/documents/apply.mjs');
        const result = structuredClone(game.messages.get(mid).flags.firefight.result);
        for (const e of result.effects) if (e.kind === 'hp') e.delta -= 50;
        return resultHash(result);
    }""",
        mid,
    )
    reply = p1.evaluate(FORGE_JS, [mid, forged_hash])
    assert reply["ok"] is False
    assert reply["code"] == "changed_result"
    assert gm.page.evaluate(HP_JS, RHINO) == before
    assert any("refused" in w and "changed_result" in w for w in gm.warnings[warnings:])  # type: ignore[attr-defined]
    gm.page.locator(".notification.warning", has_text="refused").last.wait_for()
    # The honest request is applied once ...
    real_hash = p1.evaluate(
        """async (mid) => {
        const { resultHash } = await import('/modules/firefight/js-shim/documents/apply.mjs');
        return resultHash(game.messages.get(mid).flags.firefight.result);
    }""",
        mid,
    )
    assert p1.evaluate(FORGE_JS, [mid, real_hash])["ok"] is True
    after = gm.page.evaluate(HP_JS, RHINO)
    assert after == before - tables.loss(mid)
    # ... and replaying it is refused.
    replay = p1.evaluate(FORGE_JS, [mid, real_hash])
    assert replay["ok"] is False
    assert replay["code"] == "already_applied"
    assert gm.page.evaluate(HP_JS, RHINO) == after
    assert any("already_applied" in w for w in gm.warnings[warnings:])  # type: ignore[attr-defined]
    # A result edited on the message itself no longer follows from its dice.
    mid2 = tables.shoot(tables.p1, RIFLEMAN, RHINO)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid2)
    edited_hash = p1.evaluate(
        """async (mid) => {
        const { resultHash } = await import('/modules/firefight/js-shim/documents/apply.mjs');
        const m = game.messages.get(mid);
        const result = structuredClone(m.flags.firefight.result);
        for (const e of result.effects) if (e.kind === 'hp') e.delta -= 50;
        await m.update({'flags.firefight.result': result});
        return resultHash(result);
    }""",
        mid2,
    )
    tables.gm.page.wait_for_function(
        "([id, d]) => game.messages.get(id).flags.firefight.result.effects.some(e => e.delta <= d)",
        arg=[mid2, -50],
    )
    reply = p1.evaluate(FORGE_JS, [mid2, edited_hash])
    assert reply["ok"] is False
    assert reply["code"] == "changed_result"
    assert gm.page.evaluate(HP_JS, RHINO) == after
    tables.gm.shot("15-forgery-refused")


def test_no_page_errors(tables: Tables) -> None:
    for t in tables.pages.values():
        assert t.errors == []
        assert [e for e in t.console_errors if "Firefight" not in e] == []


def test_roll_modes_follow_foundry(tables: Tables) -> None:
    p1 = tables.p1.page
    p1.evaluate("() => game.settings.set('core', 'rollMode', 'blindroll')")
    try:
        mid = tables.shoot(tables.p1, RIFLEMAN, RHINO)
    finally:
        p1.evaluate("() => game.settings.set('core', 'rollMode', 'publicroll')")
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    source = tables.gm.page.evaluate("(id) => game.messages.get(id).toObject()", mid)
    assert source["whisper"] == ["sandboxGamemastr"]
    assert source["blind"] is True
    # The GM sees the card; the shooter, and the other player, a roll they may not read (a
    # whispered roll shows that it was made: sandbox/README.md, "Chat messages").
    tables.gm.page.locator(f'[data-message-id="{mid}"] .firefight-card').wait_for()
    for t in (tables.p1, tables.p2):
        assert t.page.locator(f'[data-message-id="{mid}"] .firefight-card').count() == 0
        assert t.page.locator(f'[data-message-id="{mid}"].blind').count() == 1


# A write that fails half-way: the GM's client refuses the next status toggle (as Foundry refuses
# a status id its system lacks), after the target's stats were written.
FAIL_NEXT_STATUS_JS = """() => {
    const proto = Object.getPrototypeOf(canvas.tokens.placeables[0].actor);
    const real = proto.toggleStatusEffect;
    proto.toggleStatusEffect = async function (...args) {
        proto.toggleStatusEffect = real;
        throw new Error('Invalid status ID "' + args[0] + '" provided to Actor#toggleStatusEffect');
    };
}"""


def test_apply_is_atomic_and_a_double_click_applies_once(tables: Tables) -> None:
    gm, p1 = tables.gm.page, tables.p1.page
    tables.set_auto_apply(False)
    state0 = gm.evaluate(STATE_JS, OFFICER)
    # The officer is shot dead (hit points, state and the dead status change together).
    mid = tables.shoot(tables.p1, RIFLEMAN, OFFICER)
    assert tables.loss(mid) > 0
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    gm.evaluate(FAIL_NEXT_STATUS_JS)
    card = p1.locator(f'[data-message-id="{mid}"]')
    card.locator('[data-firefight-action="apply-effects"]').click()
    # Everything written is rolled back, and the player is told so.
    p1.locator(".notification.error", has_text="undone").wait_for()
    tables.wait_all("(id) => !game.messages.get(id).flags.firefight.applying", mid)
    for t in tables.pages.values():
        assert t.page.evaluate(STATE_JS, OFFICER) == state0
    flags = gm.evaluate(FLAGS_OF_JS, mid)
    assert "applied" not in flags
    assert "applying" not in flags
    # The card can still be applied; two quick clicks apply it once.
    card.locator('[data-firefight-action="apply-effects"]').dblclick()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", mid)
    hit = gm.evaluate(STATE_JS, OFFICER)
    record = gm.evaluate(RECORD_JS, [OFFICER, mid])
    assert record["before"] == state0["flags"]["soe"]
    assert hit["flags"]["soe"] == record["after"]
    # A third request (the API, as a macro would) is refused: applied once.
    again = p1.evaluate(f"() => game.modules.get('firefight').api.apply('{mid}')")
    assert again["ok"] is False
    assert again["code"] == "already_applied"
    assert gm.evaluate(STATE_JS, OFFICER) == hit
    tables.p1.shot("16-rolled-back-then-applied-once")
    # Put the officer back for the tests that follow.
    gm.locator(f'[data-message-id="{mid}"] [data-firefight-action="undo-effects"]').click()
    tables.wait_all("(id) => Boolean(game.messages.get(id).flags.firefight.undone)", mid)
    assert gm.evaluate(STATE_JS, OFFICER) == state0


def test_a_player_acts_only_with_their_own_token(tables: Tables) -> None:
    gm, p2 = tables.gm.page, tables.p2.page
    tables.set_auto_apply(False)
    count = p2.evaluate("() => game.messages.size")
    # Player 2 selects Player 1's rifleman, targets the rhino and presses Shoot: refused, no roll.
    tables.p2.reset()
    tables.p2.token(RIFLEMAN).click()
    tables.p2.token(RHINO).click(button="right")
    p2.locator("#shoot-button").click()
    p2.locator(".notification.error", has_text="do not own").wait_for()
    assert p2.locator("dialog.application.firefight-dialog").count() == 0
    assert p2.evaluate("() => game.messages.size") == count
    # The relay refuses too: Player 2 posts a copy of Player 1's shot as their own card and asks
    # the GM to apply it (the shooter is not theirs).
    mid = tables.shoot(tables.p1, RIFLEMAN, RHINO)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    before = gm.evaluate(HP_JS, RHINO)
    reply = p2.evaluate("""async (mid) => {
        const src = game.messages.get(mid).toObject();
        const copy = await ChatMessage.create({content: src.content, flags: src.flags,
            rolls: src.rolls.map(r => JSON.parse(r)), speaker: src.speaker});
        return game.modules.get('firefight').api.apply(copy);
    }""", mid)
    assert reply["ok"] is False
    assert reply["code"] == "not_owner"
    assert gm.evaluate(HP_JS, RHINO) == before
    gm.locator(".notification.warning", has_text="does not own").last.wait_for()
    tables.p2.shot("17-not-your-token")
