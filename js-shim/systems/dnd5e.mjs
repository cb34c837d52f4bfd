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
  statuses: { dead: "dead", unconscious: "unconscious", stun: "stunned", prone: "prone", bleeding: "bleeding", fear: "frightened" },
  // dnd5e 5.x ApplicationV2 sheets: the tabs part is templates/shared/sidebar-tabs.hbs
  // (nav.tabs[data-group="primary"] of icon links a.item.control), the tab parts live in the
  // "tab-body" container (module/applications/actor/character-sheet.mjs PARTS).
  sheet: { nav: 'nav.tabs[data-group="primary"]', body: ".tab-body", link: { classes: ["control"], icon: "fa-solid fa-crosshairs" } },
});
