// Sandbox sidebar: Chat / Actors / Compendiums tabs, the compendium packs of the module's
// manifest that the world's system gets, with draggable entries (drag data as Foundry's:
// {type, uuid}; an item entry opens its sheet on double-click), the actors directory, and the topbar's user, roll-mode, language and settings
// controls.
import { escapeHTML } from "./foundry/utils.mjs";
import { packDocuments, fromUuid } from "./foundry/documents.mjs";
import { itemSheetFor } from "./foundry/sheets.mjs";
import { packsForSystem } from "./foundry/packages.mjs";

function dragData(el, data) {
  el.draggable = true;
  el.addEventListener("dragstart", (ev) => {
    ev.dataTransfer.setData("text/plain", JSON.stringify(data));
    ev.dataTransfer.effectAllowed = "copy";
  });
}

export function renderActors() {
  const list = document.getElementById("actors-list");
  list.innerHTML = "";
  for (const actor of game.actors) {
    const li = document.createElement("li");
    li.className = "directory-item actor";
    li.dataset.documentId = actor.id;
    li.innerHTML = `<img src="${escapeHTML(actor.img ?? "")}" alt=""><span class="name">${escapeHTML(actor.name)}</span>`;
    li.addEventListener("click", () => actor.sheet.render({ force: true }));
    dragData(li, { type: "Actor", uuid: actor.uuid });
    list.append(li);
  }
}

async function renderCompendium(manifest) {
  const root = document.getElementById("compendium-list");
  root.innerHTML = "";
  // Firefight's packs, then every other active module's (a plugin ships its own soldiers), as
  // Foundry lists the packs of every active package: game.packs holds "the compendium packs of all
  // active packages" (foundryvtt.com/api/classes/foundry.Game.html#packs).
  const others = [...(game.modules?.values?.() ?? [])].filter((m) => m.active && m.id !== manifest.id);
  for (const owner of [manifest, ...others]) renderPacks(root, owner);
}

function renderPacks(root, manifest) {
  // A world lists only the packs of its own system (or of none): sandbox/foundry/packages.mjs.
  for (const pack of packsForSystem(manifest, game.system.id).filter((p) => p.type === "Item" || p.type === "Actor")) {
    const details = document.createElement("details");
    details.className = "compendium-pack";
    details.dataset.pack = pack.name;
    details.dataset.module = manifest.id;
    // A pack's label may be a lang key: Foundry localizes it in the sidebar; its document type
    // is named by the type's own label (DocumentClassMetadata `label`), localized (README).
    const typeLabel = CONFIG[pack.type]?.documentClass?.metadata?.label;
    const type = typeLabel ? game.i18n.localize(typeLabel) : pack.type;
    details.innerHTML = `<summary>${escapeHTML(game.i18n.localize(pack.label))} <small data-pack-type="${escapeHTML(pack.type)}">${escapeHTML(type)}</small></summary><ol class="pack-entries"></ol>`;
    details.addEventListener("toggle", async () => {
      const ol = details.querySelector("ol");
      if (!details.open || ol.childElementCount) return;
      for (const doc of await packDocuments(pack.name, manifest.id)) {
        const li = document.createElement("li");
        li.className = "directory-item compendium-entry";
        li.dataset.documentId = doc._id;
        li.innerHTML = `<img src="${escapeHTML(doc.img ?? "")}" alt=""><span class="name">${escapeHTML(doc.name)}</span>`;
        const uuid = `Compendium.${manifest.id}.${pack.name}.${pack.type}.${doc._id}`;
        dragData(li, { type: pack.type, uuid });
        // Double-click an item: its sheet (read-only: the pack is locked).
        if (pack.type === "Item") li.addEventListener("dblclick", async () => (await fromUuid(uuid)) && itemSheetFor(await fromUuid(uuid)).render({ force: true }));
        ol.append(li);
      }
    });
    root.append(details);
  }
}

function withParam(key, value) {
  const url = new URL(location.href);
  url.searchParams.set(key, value);
  return url.href;
}

/**
 * Configure Settings: per namespace (module), its submenus then its listed settings. A menu
 * (game.settings.registerMenu) is its name, a button with its label that renders its `type`
 * (`new type().render({force: true})`), and its hint; a restricted one is a GM's only
 * (SettingSubmenuConfig `restricted`: "If true, only a GM can edit this Setting",
 * foundryvtt.com/api/interfaces/foundry.types.SettingSubmenuConfig.html). Settings registered
 * with config: false are not listed (SettingConfig `config`).
 */
async function settingsDialog() {
  const rows = [...game.settings.settings.values()].filter((s) => s.config);
  const menus = [...(game.settings.menus?.values() ?? [])];
  const L = (k) => (k ? game.i18n.localize(k) : "");
  const field = (s) => {
    const id = `setting-${s.id.replace(/\./g, "-")}`;
    const value = game.settings.get(s.namespace, s.key);
    const disabled = s.scope === "world" && !game.user.isGM ? " disabled" : "";
    let input;
    const choices = game.settings._choicesOf(s.id);
    if (choices) {
      input = `<select id="${id}" name="${escapeHTML(s.id)}"${disabled}>${Object.entries(choices).map(([k, label]) =>
        `<option value="${escapeHTML(k)}"${k === value ? " selected" : ""}>${escapeHTML(game.i18n.localize(label))}</option>`).join("")}</select>`;
    } else if (s.type === Boolean) input = `<input type="checkbox" id="${id}" name="${escapeHTML(s.id)}"${value ? " checked" : ""}${disabled}>`;
    else input = `<input type="${s.type === Number ? "number" : "text"}" id="${id}" name="${escapeHTML(s.id)}" value="${escapeHTML(value ?? "")}" step="any"${disabled}>`;
    const hint = s.hint ? `<p class="hint">${escapeHTML(L(s.hint))}</p>` : "";
    return `<div class="form-group" data-setting="${escapeHTML(s.id)}"><label for="${id}">${escapeHTML(game.i18n.localize(s.name ?? s.key))}
      <small>${s.scope}</small></label><div class="form-fields">${input}</div>${hint}</div>`;
  };
  const menuRow = (m) => {
    const disabled = m.restricted && !game.user.isGM ? " disabled" : "";
    const hint = m.hint ? `<p class="hint">${escapeHTML(L(m.hint))}</p>` : "";
    return `<div class="form-group submenu" data-menu="${escapeHTML(m.id)}"><label>${escapeHTML(L(m.name))}</label>
      <div class="form-fields"><button type="button" data-key="${escapeHTML(m.id)}"${disabled}>${escapeHTML(L(m.label) || L(m.name))}</button></div>${hint}</div>`;
  };
  const namespaces = [...new Set([...menus.map((m) => m.namespace), ...rows.map((s) => s.namespace)])];
  const section = (ns) => `<section class="settings-namespace" data-namespace="${escapeHTML(ns)}"><h2>${escapeHTML(game.modules.get(ns)?.title ?? (ns === "core" ? "Core" : ns))}</h2>
    ${rows.filter((s) => s.namespace === ns && s.key === "ruleset").map(field).join("")}
    ${menus.filter((m) => m.namespace === ns).map(menuRow).join("")}
    ${rows.filter((s) => s.namespace === ns && s.key !== "ruleset").map(field).join("")}</section>`;
  const result = await foundry.applications.api.DialogV2.wait({
    window: { title: "Configure Settings" }, classes: ["settings-config"], position: { width: 620 },
    content: `<div class="settings-list">${namespaces.map(section).join("")}</div>`,
    // The default button's autofocus scrolls the long list to its end: show the first settings.
    render: (event, dialog) => {
      for (const el of dialog.element.querySelectorAll("form, .window-content")) el.scrollTop = 0;
      for (const button of dialog.element.querySelectorAll(".submenu button[data-key]")) {
        button.addEventListener("click", () => {
          const menu = game.settings.menus.get(button.dataset.key);
          if (menu?.type) new menu.type().render({ force: true });
        });
      }
    },
    buttons: [{ action: "save", label: "Save Changes", default: true, callback: (ev, button) => {
      const out = {};
      for (const s of rows) {
        const el = button.form.elements.namedItem(s.id);
        if (!el || el.disabled) continue;
        out[s.id] = s.type === Boolean ? el.checked : s.type === Number ? Number(el.value) : el.value;
      }
      return out;
    } }],
  });
  if (!result || typeof result !== "object") return;
  for (const [id, value] of Object.entries(result)) {
    const s = game.settings.settings.get(id);
    if (value !== game.settings.get(s.namespace, s.key)) await game.settings.set(s.namespace, s.key, value);
  }
}

export function startSidebar(manifest) {
  for (const button of document.querySelectorAll("#sidebar-tabs [data-sidebar-tab]")) {
    button.addEventListener("click", () => {
      const tab = button.dataset.sidebarTab;
      for (const el of document.querySelectorAll("[data-sidebar-tab]")) el.classList.toggle("active", el.dataset.sidebarTab === tab);
    });
  }
  renderActors();
  for (const hook of ["createActor", "updateActor", "deleteActor"]) Hooks.on(hook, renderActors);
  renderCompendium(manifest);

  const users = document.getElementById("user-select");
  users.innerHTML = game.users.map((u) => `<option value="${escapeHTML(u.id)}"${u === game.user ? " selected" : ""}>${escapeHTML(u.name)}${u.isGM ? " (GM)" : ""}</option>`).join("");
  users.addEventListener("change", () => (location.href = withParam("user", users.value)));
  const roll = document.getElementById("rollmode-select");
  const modes = game.settings.settings.get("core.rollMode").choices;
  roll.innerHTML = Object.entries(modes).map(([k, label]) => `<option value="${k}">${escapeHTML(label)}</option>`).join("");
  roll.value = game.settings.get("core", "rollMode");
  roll.addEventListener("change", () => game.settings.set("core", "rollMode", roll.value));
  const lang = document.getElementById("lang-select");
  lang.value = game.i18n.lang;
  lang.addEventListener("change", () => (location.href = withParam("lang", lang.value)));
  document.getElementById("settings-button").addEventListener("click", () => settingsDialog());
}
