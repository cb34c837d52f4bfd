// The world's RollTables a ruleset reads (General Trauma texts ...): by the class its data names.
import { MODULE_ID } from "../core/config.mjs";
import { tableFeatures } from "./catalog.mjs";

/** Pure: the five texts of a RollTable's results, in the order of their ranges. */
export function tableTexts(results) {
  return [...results].sort((a, b) => (a.range?.[0] ?? 0) - (b.range?.[0] ?? 0))
    .map((r) => String(r.text ?? r.description ?? r.name ?? "")).slice(0, 5);
}

/** The world's RollTables for a ruleset's classes (flags.firefight.<ruleset>.<by>): {class: [5 texts]}. */
export function worldTables(ruleset, by) {
  const out = {};
  for (const table of game.tables ?? []) {
    const cls = table.flags?.[MODULE_ID]?.[ruleset]?.[by];
    if (!cls) continue;
    const texts = tableTexts(table.results?.contents ?? [...(table.results ?? [])]);
    if (texts.length === 5) out[cls] = texts;
  }
  return out;
}

/**
 * The world's RollTables an action's request carries (`features.actionTables.<action>`: {field,
 * by}, read as the sheet's buttons read theirs): {<field>: tables}, or {} when the ruleset names
 * none or the world has none.
 */
export function actionTables(ruleset, action) {
  const spec = tableFeatures(ruleset).actionTables?.[action];
  if (!spec?.field || !spec?.by) return {};
  const tables = worldTables(ruleset, spec.by);
  return Object.keys(tables).length ? { [spec.field]: tables } : {};
}
