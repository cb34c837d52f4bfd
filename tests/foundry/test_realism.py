"""Issue 23 in a real Foundry v13 world (``make test-foundry``): what the sandbox can only cite.

Each pack document says which version of its system's data it holds and imports without the
system migrating it (pf2e: ``system._migration.version``; dnd5e: ``_stats.systemVersion``); the
ruleset setting refuses a value outside its choices and takes each of the engine's; the tutorial's
``foundry.utils.getRoute`` resolves under the route prefix; a one-way wall covers only from its
closed side. Only Foundry's public client API and Firefight's documented api are used.
"""

from __future__ import annotations

from typing import Any

from conftest import World

# Every module Actor/Item pack document and embedded item, as the world's system reads them.
STAMPS_JS = """async () => {
    const out = [];
    const packs = game.packs.filter((p) => p.metadata.packageName === 'firefight'
        && ['Actor', 'Item'].includes(p.documentName));
    for (const pack of packs) {
        for (const doc of await pack.getDocuments()) {
            for (const d of [doc, ...(doc.items ?? [])]) {
                out.push({pack: pack.collection, name: d.name, stats: d._source._stats ?? null,
                          migration: d._source.system?._migration ?? null});
            }
        }
    }
    return out;
}"""

# Import one actor and one item of the module's packs into the world (as a GM drags them).
IMPORT_JS = """async () => {
    const pick = (type) => game.packs.find((p) => p.metadata.packageName === 'firefight'
        && p.documentName === type);
    const out = {};
    for (const [type, collection] of [['Actor', game.actors], ['Item', game.items]]) {
        const pack = pick(type);
        const [entry] = pack.index.contents;
        const doc = await collection.importFromCompendium(pack, entry._id, {}, {keepId: false});
        out[type] = {name: doc?.name ?? null, stats: doc?._source._stats ?? null,
                     migration: doc?._source.system?._migration ?? null};
    }
    return out;
}"""


def test_pack_documents_say_which_version_of_the_system_data_they_hold(world: World) -> None:
    gm = world.gm
    errors: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error":
            errors.append(message.text)

    gm.page.on("console", on_console)
    try:
        docs = gm.js(STAMPS_JS)
        imported = gm.js(IMPORT_JS)
    finally:
        gm.page.remove_listener("console", on_console)
    assert docs, f"{world.system_id}: no module pack documents"
    wrong = [d for d in docs if (d["stats"] or {}).get("systemId") != world.system_id]
    assert not wrong, f"{world.system_id}: documents without _stats.systemId: {wrong[:3]}"
    if world.system_id == "dnd5e":
        assert all((d["stats"] or {}).get("systemVersion") for d in docs)
    if world.system_id == "pf2e":
        # pf2e migrates a document read from a non-pf2e pack from its schema version (null: every
        # migration since 0.841) and records the version it reached.
        low = [d for d in docs if not (d["migration"] or {}).get("version")]
        assert not low, f"pf2e: documents without system._migration.version: {low[:3]}"
    for kind, doc in imported.items():
        assert doc["name"], f"{world.system_id}: importing a pack {kind} gave nothing"
        assert (doc["stats"] or {}).get("systemId") == world.system_id, doc
    migration = [e for e in errors if "migrat" in e.lower()]
    assert not migration, f"{world.system_id}: migration errors on read/import: {migration[:3]}"


def test_the_ruleset_setting_takes_the_engines_rulesets_and_refuses_others(world: World) -> None:
    gm = world.gm
    outcome = gm.js("""async () => {
        const before = game.settings.get('firefight', 'ruleset');
        const api = game.modules.get('firefight').api;
        const ids = (await api.engine.call('hello')).rulesets.map((r) => r.id);
        const taken = [];
        for (const id of ids) {
            await game.settings.set('firefight', 'ruleset', id);
            taken.push(game.settings.get('firefight', 'ruleset'));
        }
        let refused = null;
        try { await game.settings.set('firefight', 'ruleset', 'no-such-ruleset'); }
        catch (err) { refused = String(err?.message ?? err); }
        await game.settings.set('firefight', 'ruleset', before || ids[0]);
        return {ids, taken, refused};
    }""")
    assert outcome["taken"] == outcome["ids"], outcome
    assert outcome["refused"], f"{world.system_id}: a value outside the choices was accepted"


def test_get_route_resolves_the_modules_files_under_the_route_prefix(world: World) -> None:
    got = world.gm.js("""async () => {
        const route = foundry.utils.getRoute('modules/firefight/module.json');
        const response = await fetch(new URL(route, location.href).href);
        return {route, ok: response.ok, id: response.ok ? (await response.json()).id : null};
    }""")
    assert got["ok"], got
    assert got["id"] == "firefight", got
    assert got["route"].endswith("/modules/firefight/module.json"), got


def test_a_one_way_wall_covers_only_from_its_closed_side(world: World) -> None:
    gm = world.gm
    gm.js("(id) => fftier.setRuleset(id)", "dpv")
    try:
        ref = gm.js("() => fftier.findPackActor({ruleset: 'dpv', armed: true})")
        shooter_actor = gm.js("(r) => fftier.importActor(r)", ref)
        target_ref = gm.js("() => fftier.findPackActor({ruleset: 'dpv'})")
        target_actor = gm.js("(r) => fftier.importActor(r)", target_ref)
        scene = gm.js("() => fftier.makeScene('Firefight: one-way wall')")
        shooter = gm.js("([s, a]) => fftier.placeToken(s, a, 2, 3)", [scene, shooter_actor])
        target = gm.js("([s, a]) => fftier.placeToken(s, a, 8, 3)", [scene, target_actor])
        cover = """async ([s, t]) => (await fftier.shoot(s, t)).request.options?.cover_material
            ?? null"""
        assert gm.js(cover, [shooter, target]) is None
        # A wall across the line at column 5, drawn from above it to below (WallData c): the
        # shooter (west) is on its right hand: LEFT (1) is open towards it, RIGHT (2) closed.
        wall = """async ([dir]) => { const size = canvas.scene.grid.size;
            await canvas.scene.createEmbeddedDocuments('Wall', [{c: [5 * size, 2 * size,
                5 * size, 5 * size], dir}]); }"""
        gm.js(wall, [1])
        assert gm.js(cover, [shooter, target]) is None
        gm.js(wall, [2])
        assert gm.js(cover, [shooter, target]) is not None
    finally:
        gm.js("(id) => fftier.setRuleset(id)", "soe")
