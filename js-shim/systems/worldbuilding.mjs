// Simple Worldbuilding (game.system.id "worldbuilding"): core's status list; one Actor type
// "character" and one Item type "item" (its template.json).
export default Object.freeze({
  id: "worldbuilding",
  title: "Simple Worldbuilding",
  // Types: foundryvtt/worldbuilding template.json ("Actor.types" ["character"], "Item.types"
  // ["item"]; template defaults fill `system`).
  documentTypes: {
    Actor: { character: "character", npc: "character" },
    Item: { weapon: "item", armor: "item", gear: "item" },
  },
  // What each pack document says of its data's version (tools/build_packs.mjs stamps it): core's
  // `_stats` only; Simple Worldbuilding has no migrations that read a version.
  stamp: { _stats: { coreVersion: "13.347", systemId: "worldbuilding" } },
  statuses: { dead: "dead", unconscious: "unconscious", stun: "stun", prone: "prone", bleeding: "bleeding", fear: "fear" },
  // Simple Worldbuilding's actor sheet: nav.sheet-tabs[data-group="primary"] of text links, the
  // tabs in section.sheet-body (templates/actor-sheet.html).
  sheet: { nav: 'nav.sheet-tabs[data-group="primary"]', body: ".sheet-body" },
  // Its item sheet (module/item-sheet.js SimpleItemSheet, an AppV1 ItemSheet: hook
  // renderItemSheet) has the same nav and body (templates/item-sheet.html).
  itemSheet: { nav: 'nav.sheet-tabs[data-group="primary"]', body: ".sheet-body" },
});
