// Module constants. Rulesets themselves live in Python; this only names them
// for the settings menu before the engine has booted.
export const MODULE_ID = "firefight";
export const DEFAULT_RULESET = "soe";
// Labels are lang keys (Foundry localizes setting choices).
export const RULESET_CHOICES = {
  soe: "FIREFIGHT.soe.name",
  percentile: "FIREFIGHT.percentile.name",
  shock: "FIREFIGHT.shock.name",
  dpv: "FIREFIGHT.dpv.name",
};
export const ENTROPY_START = 64;
export const ENTROPY_MAX = 8192;

// Table features beyond the shot (js-shim/features.mjs): which generic table mechanism each
// ruleset uses, and the names its schemas give the data. The mechanisms know no ruleset.
export const TABLE_FEATURES = {
  soe: {
    // Buttons on the Firefight sheet tab; `each`: one button per entry of that stats list, sent
    // as `field`; `badge`: a stat shown on the button when below 0; `tables`: RollTables whose
    // flags.firefight.<ruleset>.<by> names the class, their texts sent as `field`.
    sheetActions: [
      { action: "will_check", badge: "pretrauma" },
      { action: "delayed_injury_check", each: "delayed_injuries", field: "trauma_class", labelKey: "injury.class" },
      { action: "general_trauma", dialog: true, tables: { field: "trauma_tables", by: "trauma_class" } },
    ],
    // When a combat ends: effects applied to every combatant whose stat is below 0.
    combatEnd: [{ stat: "pretrauma", effects: [{ target: "target", kind: "pretrauma", value: 0, delta: 0 }] }],
  },
  percentile: {
    // Table-side actions offered in the actions menu.
    actions: ["sight_in"],
  },
  dpv: {
    actions: ["advance_time"],
    // Exploding rounds: the weapon's power field, the effect kinds and the action that resolves the blast.
    explosion: { action: "explosion", power: "ep", impact: "impact", blast: "blast" },
    // The healing clock: the condition that starts it, its points (hours) and the actions run.
    healing: { condition: "critical_points", action: "critical_point", hours: [0.5, 1, 3, 6, 12],
      unconscious: "unconscious", wake: "regain_consciousness", over: ["stabilized", "dead"] },
  },
};

/** The table features of a ruleset ({} when it has none). */
export function tableFeatures(ruleset) {
  return TABLE_FEATURES[ruleset] ?? {};
}
