// Items dropped onto actors: a Firefight weapon or armor is owned, equipped and used by the next
// shot. preCreateItem marks it equipped (armor counts in the to-damage roll; the weapon dropped
// last is the dialog's first choice); dropCanvasData gives an item dropped on a token to its actor.
// A weapon or armor made for other rulesets only (none of its data is the world's) is refused,
// with a notification naming it and its rulesets, on either path (issue 16).
import { MODULE_ID } from "../core/config.mjs";
import { t } from "../core/i18n.mjs";
import { currentRuleset, rulesetInfo } from "../world/catalog.mjs";

const GEAR = ["weapon", "armor"];

/**
 * Pure: when an item's Firefight weapon or armor data is all for other rulesets than `ruleset`,
 * {rulesets: [ids], category}; else null (data for the world's ruleset, or no such data).
 */
export function otherRulesets(itemData, ruleset) {
  const ff = itemData?.flags?.[MODULE_ID];
  if (!ff || typeof ff !== "object") return null;
  const gear = Object.entries(ff).filter(([, v]) => v && typeof v === "object" && GEAR.includes(v.category));
  if (!gear.length || gear.some(([id]) => id === ruleset)) return null;
  return { rulesets: gear.map(([id]) => id), category: gear[0][1].category };
}

const rulesetName = (id) => {
  const key = rulesetInfo(id)?.label_key ?? `FIREFIGHT.${id}.name`;
  return t(key, id);
};

/** Why an item is not given to an actor: the item, its kind and rulesets, the world's ruleset. */
export function refusalText(item, actor, found, world = currentRuleset()) {
  return t("FIREFIGHT.ui.drop.otherRuleset", "{item} ({category}) is made for {ruleset}; this world plays {world}. Not given to {name}.", {
    item: item?.name ?? "?", name: actor?.name ?? "?",
    category: t(`FIREFIGHT.ui.item.categories.${found.category}`, found.category),
    ruleset: found.rulesets.map(rulesetName).join(", "), world: rulesetName(world),
  });
}

/** Pure: the flag changes for an item about to be created on an actor (or null). */
export function equipChanges(itemData, now = Date.now()) {
  const ff = itemData?.flags?.[MODULE_ID];
  if (!ff) return null;
  const categories = Object.values(ff).filter((v) => v && typeof v === "object" && typeof v.category === "string")
    .map((v) => v.category);
  if (!categories.some((c) => c === "weapon" || c === "armor")) return null;
  if (ff.equipped === false) return null; // explicitly unequipped in its source: keep it so
  return { [`flags.${MODULE_ID}.equipped`]: true, [`flags.${MODULE_ID}.equippedAt`]: now };
}

/** Hooks.on("preCreateItem", (item, data, options, userId) => ...) */
export function onPreCreateItem(item, data, options, userId) {
  if (userId !== game.user?.id) return undefined;
  if (!item?.parent || item.parent.documentName !== "Actor") return undefined;
  const found = otherRulesets(data ?? item, currentRuleset());
  if (found) {
    ui.notifications?.warn(refusalText(data ?? item, item.parent, found));
    return false; // preCreateItem: false cancels the creation
  }
  const changes = equipChanges(data ?? item);
  if (changes) item.updateSource(changes);
  return undefined;
}

function tokenAt(canvasObj, x, y) {
  const tokens = canvasObj?.tokens?.placeables ?? [];
  // The top-most token whose square contains the point.
  return [...tokens].reverse().find((tok) => {
    const b = tok.bounds;
    if (b?.contains) return b.contains(x, y);
    const w = tok.w ?? tok.width ?? 0;
    const h = tok.h ?? tok.height ?? 0;
    return x >= tok.x && x < tok.x + w && y >= tok.y && y < tok.y + h;
  });
}

/** Hooks.on("dropCanvasData", (canvas, data) => ...): an Item dropped on a token. */
export function onDropCanvasData(canvasObj, data) {
  if (data?.type !== "Item" || !data.uuid) return undefined;
  const token = tokenAt(canvasObj, data.x, data.y);
  const actor = token?.actor;
  if (!actor) return undefined;
  if (!actor.isOwner) {
    ui.notifications?.warn(t("FIREFIGHT.ui.drop.notOwner", "You do not own {name}.", { name: actor.name }));
    return false;
  }
  (async () => {
    const item = await fromUuid(data.uuid);
    if (!item) return;
    const found = otherRulesets(item, currentRuleset());
    if (found) {
      ui.notifications?.warn(refusalText(item, actor, found));
      return;
    }
    const source = item.toObject();
    delete source._id;
    await actor.createEmbeddedDocuments("Item", [source]);
    ui.notifications?.info(t("FIREFIGHT.ui.drop.given", "{item} given to {name}.", { item: item.name, name: actor.name }));
  })().catch((err) => {
    console.error("Firefight |", err);
    ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
  });
  return false;
}
