// Foundry core's own status list (CONFIG.statusEffects as core defines it) and document types:
// the fallback for any system without an adapter of its own.
export default Object.freeze({
  id: "core",
  documentTypes: {
    Actor: { character: "base", npc: "base" },
    Item: { weapon: "base", armor: "base", gear: "base" },
  },
  statuses: { dead: "dead", unconscious: "unconscious", stun: "stun", prone: "prone", bleeding: "bleeding", fear: "fear" },
  sheet: {},
  // Core's item sheets: ItemSheetV2 (renderItemSheetV2) or an AppV1 ItemSheet (renderItemSheet);
  // tabs by the generic guess.
  itemSheet: {},
});
