// D&D Fifth Edition 5.x (game.system.id "dnd5e"): its own status list replaces core's
// (dnd5e module/config.mjs statusEffects / conditionTypes), its own document types.
export default Object.freeze({
  id: "dnd5e",
  title: "D&D Fifth Edition",
  // Types: dnd5e system.json "documentTypes" (Actor character, npc; Item weapon, equipment (armor
  // is equipment with an armor type), loot); each has a TypeDataModel whose fields all default, so
  // `system: {}` constructs.
  documentTypes: {
    Actor: { character: "character", npc: "npc" },
    Item: { weapon: "weapon", armor: "equipment", gear: "loot" },
  },
  // What each pack document says of its data's version (tools/build_packs.mjs stamps it on every
  // document and embedded item): dnd5e's migrations compare `_stats.systemVersion` with the release
  // that changed the data (module/migration.mjs isNewerVersion("4.0.0", …)) and its item model reads
  // a missing one as "0.0.0" (module/data/item/templates/activities.mjs); its own packs carry core's
  // `_stats` (coreVersion, systemId, systemVersion: packs/_source/items/weapon/battleaxe-1.yml).
  // 5.3.3 is the release the adapter is written against; 13.347 its system.json compatibility.minimum.
  stamp: { _stats: { coreVersion: "13.347", systemId: "dnd5e", systemVersion: "5.3.3" } },
  statuses: { dead: "dead", unconscious: "unconscious", stun: "stunned", prone: "prone", bleeding: "bleeding", fear: "frightened" },
  // dnd5e 5.x ApplicationV2 sheets: the tabs part is templates/shared/sidebar-tabs.hbs
  // (nav.tabs[data-group="primary"] of icon links a.item.control), the tab parts live in the
  // "tab-body" container (module/applications/actor/character-sheet.mjs PARTS).
  sheet: { nav: 'nav.tabs[data-group="primary"]', body: ".tab-body", link: { classes: ["control"], icon: "fa-solid fa-crosshairs" } },
  // dnd5e 5.x item sheets: ItemSheet5e extends DocumentSheetV2, not ItemSheetV2
  // (module/applications/item/item-sheet.mjs, api/document-sheet.mjs), so its render hook is
  // renderItemSheet5e (an ApplicationV2 fires one per class of its chain, hookEvents.renderApplicationV2).
  // PARTS: a `tabs` part (templates/shared/horizontal-tabs.hbs: nav.tabs of text links `.item`,
  // less/v2/items.less) and the tab parts as sections.tab[data-tab][data-group] beside it.
  itemSheet: { hooks: ["renderItemSheet5e", "renderItemSheetV2"], nav: "nav.tabs" },
});
