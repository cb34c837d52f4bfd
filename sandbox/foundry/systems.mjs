// The game systems the sandbox can imitate (?system=<id>, default "worldbuilding"): what each
// declares to Foundry (document types) and puts in CONFIG.statusEffects, and which sheet its
// actors get. Each entry cites where its shape comes from (sandbox/README.md, "Systems").

// Foundry core's CONFIG.statusEffects ids (a system that keeps core's list, as Simple
// Worldbuilding does).
const CORE_STATUS_IDS = [
  "dead", "unconscious", "sleep", "stun", "prone", "restrain", "paralysis", "fly", "blind", "deaf",
  "silence", "fear", "burning", "frozen", "shock", "corrode", "bleeding", "disease", "poison",
  "curse", "regen", "degen", "hover", "burrow", "upgrade", "downgrade", "invisible", "target", "eye",
  "bless", "fireShield", "coldShield", "magicShield", "holyShield",
];

const statusList = (ids) => ids.map((id) => ({ id, name: id, img: "" }));

export const SYSTEMS = {
  worldbuilding: {
    id: "worldbuilding", title: "Simple Worldbuilding", version: "0.8.2",
    documentTypes: { Actor: ["character"], Item: ["item"] },
    statusEffects: statusList(CORE_STATUS_IDS),
    sheet: "whole",
    gridDiagonals: 0, // EQUIDISTANT: core's default, worldbuilding's system.json sets none (foundryvtt#9999)
  },
  dnd5e: {
    id: "dnd5e", title: "D&D Fifth Edition", version: "5.3.3",
    documentTypes: { Actor: ["character", "npc", "vehicle", "group", "encounter"],
      Item: ["weapon", "equipment", "consumable", "tool", "loot", "container", "background", "class", "subclass", "race", "feat", "spell", "facility"] },
    // dnd5e 5.3.3 dnd5e.mjs _configureStatusEffects: CONFIG.statusEffects becomes DND5E.statusEffects,
    // then DND5E.conditionTypes, then DND5E.encumbrance.effects (module/config.mjs); core's list is
    // dropped (no "stun", no "fear").
    statusEffects: statusList([
      "burrowing", "concentrating", "coverHalf", "coverThreeQuarters", "coverTotal", "dead", "dodging", "ethereal",
      "flying", "hiding", "hovering", "marked", "sleeping", "stable",
      "bleeding", "blinded", "burning", "charmed", "cursed", "dehydration", "deafened", "diseased", "exhaustion",
      "falling", "frightened", "grappled", "incapacitated", "invisible", "malnutrition", "paralyzed", "petrified",
      "poisoned", "prone", "restrained", "silenced", "stunned", "suffocation", "surprised", "transformed", "unconscious",
      "encumbered", "heavilyEncumbered", "exceedingCarryingCapacity",
    ]),
    // ApplicationV2 sheets rendered part by part (foundryvtt/dnd5e
    // module/applications/actor/character-sheet.mjs PARTS): sandbox/foundry/sheets.mjs.
    sheet: "parts",
    gridDiagonals: 0, // EQUIDISTANT: dnd5e's system.json grid sets no diagonals (foundryvtt/dnd5e system.json)
  },
  pf2e: {
    id: "pf2e", title: "Pathfinder Second Edition", version: "7.0.0",
    documentTypes: { Actor: ["character", "npc", "hazard", "loot", "familiar", "vehicle", "party", "army"],
      Item: ["weapon", "armor", "shield", "equipment", "consumable", "treasure", "backpack", "ammo", "action", "feat", "spell", "effect", "condition", "lore", "melee"] },
    // pf2e src/module/canvas/status-effects.ts #updateStatusIcons: CONFIG.statusEffects is the
    // token-HUD conditions (src/scripts/config/index.ts tokenHUDConditions) plus "dead"; no
    // "bleeding" (persistent damage is a condition with a damage type). ActorPF2e#toggleStatusEffect
    // turns a condition slug into a condition item (toggleCondition) and passes any other id to core.
    statusEffects: statusList([
      "blinded", "broken", "clumsy", "concealed", "confused", "controlled", "dazzled", "deafened", "doomed", "drained",
      "dying", "encumbered", "enfeebled", "fascinated", "fatigued", "fleeing", "frightened", "grabbed", "hidden",
      "immobilized", "invisible", "off-guard", "paralyzed", "persistent-damage", "petrified", "prone", "quickened",
      "restrained", "sickened", "slowed", "stunned", "stupefied", "unconscious", "undetected", "wounded", "dead",
    ]),
    sheet: "whole",
    gridDiagonals: 4, // ALTERNATING_1 (1/2/1): pf2e's system.json grid.diagonals (foundryvtt/pf2e PR #14472)
  },
};

/** The system a page imitates: ?system=<id>, default Simple Worldbuilding. */
export function systemFor(id) {
  const system = SYSTEMS[id ?? "worldbuilding"];
  if (!system) throw new Error(`Sandbox: no system "${id}" (choose one of ${Object.keys(SYSTEMS).join(", ")})`);
  return system;
}

// --- what a system reads of a compendium document's version -------------------------------------
// pf2e: a document's schema version is `system._migration.version` (older data: `system.schema.
// version`), null when absent (ItemPF2e/ActorPF2e#schemaVersion, src/module/item/base/document.ts,
// src/module/actor/base.ts). Its client backend migrates every Actor/Item read from a pack not
// named "pf2e.*" with MigrationList.constructFromVersion(schemaVersion), which for null is every
// migration after RECOMMENDED_SAFE_VERSION (0.841), and only logs a failure
// (src/module/system/client-backend.ts `_getDocuments`; src/module/migration/index.ts,
// runner/base.ts); importing migrates again (createDocuments: MigrationRunner.ensureSchemaVersion).
// dnd5e: its migrations compare `_stats.systemVersion` with the release that changed the data
// (module/migration.mjs `migrateActorData`/`migrateItemData`: isNewerVersion("4.0.0", …)), and its
// item data model reads a missing one as "0.0.0" (module/data/item/templates/activities.mjs
// `#shouldCreateInitialActivity`): a document without it is taken as older than any release.
// Simple Worldbuilding reads neither. The sandbox runs no system migration: it reports such a
// document instead (sandbox/README.md).

const PF2E_SAFE_VERSION = 0.841; // pf2e MigrationRunnerBase.RECOMMENDED_SAFE_VERSION

function pf2eSchemaVersion(doc) {
  return Number(doc?.system?._migration?.version ?? doc?.system?.schema?.version) || null;
}

const VERSION_CHECKS = {
  pf2e: (doc) => (pf2eSchemaVersion(doc) === null
    ? `pf2e would migrate "${doc.name}" with every migration after ${PF2E_SAFE_VERSION}: its schema version (system._migration.version) is null`
    : null),
  dnd5e: (doc) => (doc?._stats?.systemVersion
    ? null
    : `dnd5e would take "${doc.name}" for data older than any dnd5e release: it has no _stats.systemVersion`),
};

/**
 * What the world's system would do to a compendium Actor or Item (and its embedded items) that
 * does not say which version of the system's data it holds: a list of reports (empty: none).
 */
export function unversionedDocumentProblems(systemId, doc) {
  const check = VERSION_CHECKS[systemId];
  if (!check) return [];
  return [doc, ...(Array.isArray(doc?.items) ? doc.items : [])].map(check).filter(Boolean);
}
