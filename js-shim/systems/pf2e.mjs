// Pathfinder Second Edition (game.system.id "pf2e"): conditions are its statuses; its own
// document types (ActorProxyPF2e / ItemProxyPF2e refuse any other).
export default Object.freeze({
  id: "pf2e",
  title: "Pathfinder Second Edition",
  // Types: pf2e static/template.json ("Actor.types" character, npc; "Item.types" weapon, armor,
  // equipment); ActorProxyPF2e throws "Actor type base does not exist and actor module sub-types are
  // not supported" for any other (foundryvtt/pf2e src/module/actor/base.ts).
  documentTypes: {
    Actor: { character: "character", npc: "npc" },
    Item: { weapon: "weapon", armor: "armor", gear: "equipment" },
  },
  // The minimal `system` the packs give each type (merged under the source's own `system`): the
  // common item/actor fields of pf2e's static/template.json, which its item and actor classes read
  // while preparing data (rules, traits, description, slug).
  documentDefaults: {
    Actor: {
      character: { traits: { value: [], rarity: "common", size: { value: "med" } } },
      npc: { traits: { value: [], rarity: "common", size: { value: "med" } }, details: { level: { value: 0 } } },
    },
    // `subitems`: pf2e's migration runner iterates `system.subitems` of every armor, equipment,
    // shield and weapon without a guard (src/module/migration/runner/base.ts getUpdatedItem,
    // getUpdatedActor), so a migration that ever runs on these items needs the list.
    Item: Object.fromEntries(["weapon", "armor", "equipment"].map((type) => [type, {
      description: { value: "" }, rules: [], slug: null, traits: { value: [], rarity: "common" }, quantity: 1, subitems: [],
    }])),
  },
  // What each pack document says of its data's version (tools/build_packs.mjs stamps it on every
  // document and embedded item): pf2e's schema version is `system._migration.version`
  // (ItemPF2e/ActorPF2e#schemaVersion); its client backend migrates an Actor/Item read from a
  // non-pf2e pack with every migration after that version, all since 0.841 when it is null
  // (src/module/system/client-backend.ts `_getDocuments`, MigrationList.constructFromVersion), and
  // importing migrates again (createDocuments, MigrationRunner.ensureSchemaVersion). 0.96 is
  // MigrationRunnerBase.LATEST_SCHEMA_VERSION of the pf2e code the adapter is written against
  // (src/module/migration/runner/base.ts @0027483); a newer pf2e runs only its later migrations.
  // `_stats` as core keeps it (no systemVersion: the pf2e release of that schema is not established).
  stamp: {
    _stats: { coreVersion: "13.347", systemId: "pf2e" },
    system: { _migration: { version: 0.96, previous: null } },
  },
  statuses: { dead: "dead", unconscious: "unconscious", stun: "stunned", prone: "prone", bleeding: null, fear: "frightened" },
  // pf2e's actor sheets (selector lists: the first element either names, in document order):
  // the character sheet's nav.sheet-navigation[data-group="primary"] of icon links, its tabs in
  // section.sheet-body > section.sheet-content (static/templates/actors/character/sheet.hbs);
  // the NPC sheet's div.npc-body > nav.sheet-tabs.tabs[data-group="primary"] of text links, its
  // tabs in div.npc-body > section.sheet-body (static/templates/actors/npc/sheet.hbs @4663001).
  // The link is the character sheet's icon on both (one link style per adapter: sheet.mjs).
  sheet: {
    nav: 'nav.sheet-navigation[data-group="primary"], .npc-body > nav.sheet-tabs[data-group="primary"]',
    body: "section.sheet-body > .sheet-content, .npc-body > section.sheet-body",
    link: { classes: [], icon: "fa-solid fa-crosshairs" },
  },
  // pf2e's item sheets: ItemSheetPF2e extends the AppV1 ItemSheet (hook renderItemSheet;
  // src/module/item/base/sheet/sheet.ts, tabs navSelector ".tabs", contentSelector ".sheet-body");
  // static/templates/items/sheet.hbs: nav.sheet-navigation > h4.sheet-tabs.tabs of text links
  // a.list-row[data-tab] (no data-group), the tab sections in div.sheet-body.
  itemSheet: { nav: ".sheet-navigation .sheet-tabs", body: ".sheet-body", link: { classes: ["list-row"] } },
});
