// The scene: a square grid drawn in SVG, tokens you can select, target and drag,
// and canvas.grid.measurePath for distances.
import { Hooks } from "./hooks.mjs";
import { escapeHTML } from "./utils.mjs";
import { fromUuid, MeasuredTemplateDocument } from "./documents.mjs";
import { SquareGrid } from "./grid.mjs";

const DOUBLE_CLICK_MS = 500; // the browser default is about this

const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

/** A token placeable on the canvas. */
export class Token {
  constructor(document, layer) {
    this.document = document;
    this.layer = layer;
    this.controlled = false;
    this.hover = false;
    this.element = null;
  }
  get id() {
    return this.document.id;
  }
  get name() {
    return this.document.name;
  }
  get actor() {
    return this.document.actor;
  }
  get x() {
    return this._drag?.x ?? this.document.x;
  }
  get y() {
    return this._drag?.y ?? this.document.y;
  }
  get w() {
    return (this.document.width ?? 1) * canvas.grid.size;
  }
  get h() {
    return (this.document.height ?? 1) * canvas.grid.size;
  }
  get center() {
    return { x: this.x + this.w / 2, y: this.y + this.h / 2 };
  }
  get isTargeted() {
    return game.user.targets.has(this);
  }
  get isOwner() {
    return this.document.isOwner;
  }
  /** A hidden token is seen by GMs only (Token#isVisible; the sandbox has no vision). */
  get isVisible() {
    return !this.document.hidden || Boolean(game.user?.isGM);
  }
  /**
   * PlaceableObject#_onHoverIn(event, {hoverOutOthers}) / #_onHoverOut(event): the `hover` state
   * and the `hoverToken` hook, called by cards and trackers to highlight a token (dnd5e
   * ChatMessage5e#_onTargetHoverIn; pf2e's combat tracker).
   */
  _onHoverIn(event, { hoverOutOthers = false } = {}) {
    if (this.hover) return false;
    if (hoverOutOthers) for (const t of this.layer.placeables) if (t !== this && t.hover) t._onHoverOut(event);
    this.hover = true;
    this.layer.hover = this;
    Hooks.callAll("hoverToken", this, true);
    this.layer.refresh();
    return true;
  }
  _onHoverOut(event) {
    if (!this.hover) return false;
    this.hover = false;
    if (this.layer.hover === this) this.layer.hover = null;
    Hooks.callAll("hoverToken", this, false);
    this.layer.refresh();
    return true;
  }
  get bounds() {
    const { x, y, w, h } = this;
    return { x, y, width: w, height: h, contains: (px, py) => px >= x && px < x + w && py >= y && py < y + h };
  }
  control({ releaseOthers = true } = {}) {
    if (releaseOthers) for (const t of this.layer.controlled) if (t !== this) t.release();
    if (!this.controlled) {
      this.controlled = true;
      Hooks.callAll("controlToken", this, true);
    }
    this.layer.refresh();
    return true;
  }
  release() {
    if (!this.controlled) return false;
    this.controlled = false;
    Hooks.callAll("controlToken", this, false);
    this.layer.refresh();
    return true;
  }
  setTarget(targeted = true, { user = game.user, releaseOthers = true } = {}) {
    if (releaseOthers) {
      for (const t of [...user.targets]) if (t !== this) {
        user.targets.delete(t);
        Hooks.callAll("targetToken", user, t, false);
      }
    }
    const was = user.targets.has(this);
    if (targeted) user.targets.add(this);
    else user.targets.delete(this);
    if (was !== targeted) Hooks.callAll("targetToken", user, this, targeted);
    this.layer.refresh();
  }
}

export class TokenLayer {
  constructor(view) {
    this.view = view;
    this.objects = new Map();
  }
  get placeables() {
    return [...this.objects.values()];
  }
  get controlled() {
    return this.placeables.filter((t) => t.controlled);
  }
  get ownedTokens() {
    return this.placeables.filter((t) => t.isOwner);
  }
  get(id) {
    return this.objects.get(id);
  }
  activate() {
    canvas.activeLayer = this;
    this.view.drawTemplates();
    ui.controls?.render();
    return this;
  }
  releaseAll() {
    for (const t of this.controlled) t.release();
    this.view._lastClick = null; // a click after this starts afresh (not the second of a double)
  }
  refresh() {
    this.view.draw();
  }
}

// --- measured templates: the template layer (Measurement controls), its preview, the stage ------

/**
 * A MeasuredTemplate placeable: its document; `draw()` / `refresh()` redraw the template layer
 * (a preview one too: `canvas.templates.preview`, as dnd5e's AbilityTemplate adds it there).
 */
export class MeasuredTemplate {
  constructor(document) {
    this.document = document;
  }
  get layer() {
    return canvas.templates;
  }
  get id() {
    return this.document.id;
  }
  async draw() {
    return this;
  }
  refresh() {
    this.layer.view?.drawTemplates();
    return this;
  }
  destroy() {
    this.document = null;
  }
}

/**
 * The template layer: active while the Measurement controls are (then its tools own the canvas
 * and tokens do not react, as only the active layer's objects are interactive); its `preview`
 * container; `getSnappedPoint` (sandbox/README.md: the half-grid points, i.e. a square's centre,
 * its corners and the midpoints of its sides).
 */
export class TemplateLayer {
  constructor(view) {
    this.view = view;
    this.active = false;
    const children = [];
    this.preview = {
      children,
      addChild: (o) => { children.push(o); view.drawTemplates(); return o; },
      removeChild: (o) => { const i = children.indexOf(o); if (i >= 0) children.splice(i, 1); view.drawTemplates(); return o; },
      removeChildren: () => { children.splice(0); view.drawTemplates(); },
    };
  }
  get placeables() {
    return [...(canvas.scene?.templates ?? [])].map((doc) => new MeasuredTemplate(doc));
  }
  activate() {
    canvas.activeLayer = this;
    this.view.drawTemplates();
    ui.controls?.render();
    return this;
  }
  getSnappedPoint({ x, y }) {
    const step = canvas.grid.size / 2;
    return { x: Math.round(x / step) * step, y: Math.round(y / step) * step };
  }
}

/** canvas.stage's events for a preview: "mousemove", "mousedown" (the left button). */
export class Stage {
  constructor() {
    this.listeners = new Map();
  }
  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(fn);
    return this;
  }
  off(name, fn) {
    this.listeners.get(name)?.delete(fn);
    return this;
  }
  has(name) {
    return Boolean(this.listeners.get(name)?.size);
  }
  emit(name, event) {
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(event);
  }
}

function statsOf(actor) {
  let ruleset = "";
  try {
    ruleset = game.settings.get("firefight", "ruleset");
  } catch { /* module not loaded */ }
  return actor?.flags?.firefight?.[ruleset] ?? {};
}

/** The token's bar: hit points, else life force, else wounds (whatever the actor's data has). */
function barOf(st) {
  if (Number.isFinite(st.hp_max) && st.hp_max > 0) {
    const hp = Number.isFinite(st.hp) ? st.hp : st.hp_max;
    return { value: hp, max: st.hp_max, label: `${hp}/${st.hp_max} HP` };
  }
  if (Number.isFinite(st.life_force)) return { value: st.life_force, max: 100, label: `${st.life_force}% LF` };
  if (Number.isFinite(st.wounds)) return { value: Math.max(0, 10 - st.wounds), max: 10, label: `${st.wounds} W` };
  if (Number.isFinite(st.light_wounds)) return { value: Math.max(0, 10 - st.light_wounds), max: 10, label: `${st.light_wounds} LW` };
  return null;
}

// Status icons drawn on tokens (core's status ids and the dnd5e / pf2e ones Firefight sets).
export const STATUS_ICONS = { dead: "☠", unconscious: "💤", stun: "✷", stunned: "✷", prone: "⤓", bleeding: "🩸",
  fear: "!", frightened: "!" };

/**
 * TokenHUD subset: a panel beside a token with a left and a right column of control icons;
 * "renderTokenHUD" lets modules add their own (hud.object is the token).
 */
export class TokenHUD {
  constructor() {
    this.object = null;
    this.element = null;
  }
  get token() {
    return this.object;
  }
  bind(token) {
    this.clear();
    this.object = token;
    const el = document.createElement("div");
    el.id = "token-hud";
    el.className = "application placeable-hud";
    el.innerHTML = `<div class="col left"><button type="button" class="control-icon" data-hud="target" aria-label="Target" data-tooltip="Target">◎</button></div>
      <div class="col middle"><span class="hud-name">${escapeHTML(token.name)}</span></div>
      <div class="col right"><button type="button" class="control-icon" data-hud="close" aria-label="Close" data-tooltip="Close">✕</button></div>`;
    el.querySelector('[data-hud="close"]').addEventListener("click", () => this.clear());
    el.querySelector('[data-hud="target"]').addEventListener("click", () => token.setTarget(!token.isTargeted, { releaseOthers: true }));
    document.getElementById("board").append(el);
    const svgEl = document.querySelector(`.token[data-token-id="${token.id}"]`);
    const r = svgEl?.getBoundingClientRect();
    const board = document.getElementById("board").getBoundingClientRect();
    if (r) {
      el.style.left = `${r.left - board.left + r.width / 2}px`;
      el.style.top = `${r.top - board.top + r.height / 2}px`;
    }
    this.element = el;
    Hooks.callAll("renderTokenHUD", this, el, { token: token.document }, {});
    return this;
  }
  clear() {
    this.element?.remove();
    this.element = null;
    this.object = null;
  }
}

/** Draws the scene and handles pointer input. */
export class SceneView {
  constructor(svgRoot) {
    this.root = svgRoot;
    this.hover = null;
    this.hud = new TokenHUD();
  }
  attach(canvasObj) {
    this.canvas = canvasObj;
    const { cols, rows } = canvasObj.scene;
    const size = canvasObj.grid.size;
    this.root.setAttribute("viewBox", `0 0 ${cols * size} ${rows * size}`);
    this.root.innerHTML = "";
    const defs = svg("defs");
    defs.innerHTML = `
      <pattern id="grid" width="${size}" height="${size}" patternUnits="userSpaceOnUse">
        <path d="M ${size} 0 L 0 0 0 ${size}" fill="none" stroke="rgba(40,52,34,.28)" stroke-width="2"/></pattern>
      <radialGradient id="ground" cx="50%" cy="45%" r="75%">
        <stop offset="0%" stop-color="#b7b48a"/><stop offset="100%" stop-color="#8d8a62"/></radialGradient>
      <clipPath id="token-clip"><circle cx="${size / 2}" cy="${size / 2}" r="${size * 0.4}"/></clipPath>
      <filter id="shadow" x="-20%" y="-20%" width="140%" height="140%"><feDropShadow dx="0" dy="4" stdDeviation="4" flood-opacity=".45"/></filter>`;
    this.root.append(defs);
    this.root.append(svg("rect", { width: cols * size, height: rows * size, fill: "url(#ground)" }));
    this.root.append(svg("rect", { width: cols * size, height: rows * size, fill: "url(#grid)", class: "grid" }));
    // A scale bar so the distances mean something at a glance.
    const scale = svg("g", { class: "scale-bar", transform: `translate(${size * 0.5},${rows * size - size * 0.45})` });
    scale.innerHTML = `<rect width="${size * 2}" height="10" fill="#222"/><rect width="${size}" height="10" fill="#eee"/>
      <text x="0" y="-10" class="scale-text">0</text><text x="${size * 2}" y="-10" class="scale-text" text-anchor="end">${2 * canvasObj.grid.distance} ${escapeHTML(canvasObj.grid.units)}</text>`;
    this.root.append(scale);
    this.templates = svg("g", { class: "templates" });
    this.lines = svg("g", { class: "range-lines" });
    this.tokens = svg("g", { class: "tokens" });
    this.root.append(this.templates, this.lines, this.tokens);
    this.root.addEventListener("pointerdown", (ev) => {
      if (ev.button === 0) this.hud.clear();
      if (ev.button === 0 && !ev.target.closest(".token")) canvasObj.tokens.releaseAll();
    });
    this.root.addEventListener("contextmenu", (ev) => ev.preventDefault());
    this._listenForTemplates(canvasObj);
    // Drops from the sidebar (compendium entries): Hooks "dropCanvasData", then core's handling.
    this.root.addEventListener("dragover", (ev) => ev.preventDefault());
    this.root.addEventListener("drop", (ev) => {
      ev.preventDefault();
      let data;
      try {
        data = JSON.parse(ev.dataTransfer.getData("text/plain"));
      } catch {
        return;
      }
      const p = this.toScene(ev);
      Object.assign(data, { x: p.x, y: p.y });
      if (Hooks.call("dropCanvasData", canvasObj, data, ev) === false) return;
      canvasObj._onDrop(data).catch((err) => ui.notifications.error(err.message));
    });
    window.addEventListener("keydown", (ev) => {
      if (ev.key.toLowerCase() === "t" && this.hover && !ev.target.closest("input,select,textarea")) {
        this.hover.setTarget(!this.hover.isTargeted, { releaseOthers: !ev.shiftKey });
      }
      // [ and ] turn the selected tokens 45° (Shift: 15°) anticlockwise / clockwise.
      if ((ev.key === "[" || ev.key === "]") && !ev.target.closest("input,select,textarea")) {
        const step = (ev.shiftKey ? 15 : 45) * (ev.key === "]" ? 1 : -1);
        for (const token of canvasObj.tokens.controlled) {
          const rotation = (((token.document.rotation ?? 0) + step) % 360 + 360) % 360;
          token.document.update({ rotation }).catch((err) => ui.notifications.warn(err.message));
        }
      }
    });
  }

  /**
   * While the template layer is active the canvas is its own: the stage's listeners (a preview
   * placed from a dialog) get "mousemove" and "mousedown"; otherwise the circle tool draws a
   * circle by click and drag (the centre where the drag starts, the radius to where it ends,
   * both snapped by the layer; Shift: not snapped) and creates it on release.
   */
  _listenForTemplates(canvasObj) {
    const stageEvent = (ev) => ({ getLocalPosition: () => this.toScene(ev), stopPropagation: () => {}, shiftKey: ev.shiftKey,
      button: ev.button, originalEvent: ev });
    this.root.addEventListener("pointermove", (ev) => canvasObj.stage.emit("mousemove", stageEvent(ev)));
    this.root.addEventListener("pointerdown", (ev) => {
      if (canvasObj.activeLayer !== canvasObj.templates) return;
      ev.stopPropagation();
      if (ev.button !== 0) return;
      if (canvasObj.stage.has("mousedown")) canvasObj.stage.emit("mousedown", stageEvent(ev));
      else if (ui.controls?.tool?.name === "circle") this._dragCircle(ev);
    }, true);
    // A right click on the template layer is the layer's (a token there is not targeted).
    this.root.addEventListener("contextmenu", (ev) => {
      if (canvasObj.activeLayer !== canvasObj.templates) return;
      ev.preventDefault();
      ev.stopPropagation();
      if (ev.target !== this.root) this.root.oncontextmenu?.(ev);
    }, true);
  }

  _dragCircle(ev) {
    const layer = this.canvas.templates;
    const snap = (e) => (e.shiftKey ? this.toScene(e) : layer.getSnappedPoint(this.toScene(e)));
    const origin = snap(ev);
    const colour = game.user.color ?? "#2471a3";
    const doc = new MeasuredTemplateDocument({ t: "circle", user: game.user.id, x: origin.x, y: origin.y, distance: 0, direction: 0,
      fillColor: colour, borderColor: colour }, { parent: this.canvas.scene });
    const preview = new MeasuredTemplate(doc);
    const start = this.toScene(ev);
    // Drawn once the pointer moves (a click, or the two of a double-click, redraws nothing).
    const move = (e) => {
      const at = this.toScene(e);
      if (!layer.preview.children.includes(preview)) {
        if (Math.hypot(at.x - start.x, at.y - start.y) < 6) return;
        layer.preview.addChild(preview);
      }
      const p = snap(e);
      const { size, distance } = this.canvas.grid;
      doc.updateSource({ distance: Math.round((Math.hypot(p.x - origin.x, p.y - origin.y) / size) * distance * 100) / 100,
        direction: Math.round(((Math.atan2(p.y - origin.y, p.x - origin.x) * 180) / Math.PI + 360) % 360) });
      preview.refresh();
    };
    const up = async (e) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      move(e);
      if (!layer.preview.children.includes(preview)) return;
      layer.preview.removeChild(preview);
      if (!(doc.distance > 0)) return;
      try {
        const { _id, ...data } = doc.toObject();
        await this.canvas.scene.createEmbeddedDocuments("MeasuredTemplate", [data]);
      } catch (err) {
        ui.notifications.warn(err.message);
      }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }

  toScene(ev) {
    const pt = this.root.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    return pt.matrixTransform(this.root.getScreenCTM().inverse());
  }

  /** MeasuredTemplate circles (blasts): distance in scene units. */
  drawTemplates() {
    if (!this.templates) return;
    const { grid } = this.canvas;
    this.templates.innerHTML = "";
    this.root.classList.toggle("layer-templates", this.canvas.activeLayer === this.canvas.templates);
    const previews = (this.canvas.templates?.preview.children ?? []).map((o) => o.document).filter(Boolean);
    for (const doc of [...(this.canvas.scene?.templates ?? []), ...previews]) {
      if ((doc.t ?? "circle") !== "circle") continue;
      const preview = previews.includes(doc);
      const r = ((doc.distance ?? 0) / grid.distance) * grid.size;
      const blast = doc.flags?.firefight?.blast ?? "";
      const circle = svg("circle", { cx: doc.x, cy: doc.y, r, class: `template ${blast}${preview ? " preview" : ""}`, "data-template-id": preview ? "" : doc.id,
        "data-blast": blast, fill: doc.fillColor ?? "#c0392b", stroke: doc.borderColor ?? "#c0392b" });
      // Double-click a template to remove it (its owner or a GM).
      circle.addEventListener("dblclick", () => {
        if (preview) return;
        if (doc.isOwner) this.canvas.scene.deleteEmbeddedDocuments("MeasuredTemplate", [doc.id]);
        else ui.notifications.warn(`${game.user.name} may not delete a template another user drew.`);
      });
      circle.append(svg("title"));
      circle.firstChild.textContent = `${doc.flags?.firefight?.label ?? ""} ${doc.distance} ${grid.units} (double-click to remove)`.trim();
      this.templates.append(circle);
      this.templates.append(svg("circle", { cx: doc.x, cy: doc.y, r: 6, class: "template-centre", fill: doc.borderColor ?? "#c0392b" }));
    }
  }

  draw() {
    if (!this.canvas) return;
    const { grid } = this.canvas;
    const size = grid.size;
    this.drawTemplates();
    this.tokens.innerHTML = "";
    for (const token of this.canvas.tokens.placeables) {
      const g = svg("g", { class: `token${token.controlled ? " controlled" : ""}${token.isTargeted ? " targeted" : ""}${token.hover ? " hovered" : ""}`,
        "data-token-id": token.id, "data-name": token.name, transform: `translate(${token.x},${token.y})`, tabindex: 0,
        role: "button", "aria-label": token.name });
      const disp = token.document.disposition ?? 0;
      const ring = disp > 0 ? "#2f7ed8" : disp < 0 ? "#c0392b" : "#d4a017";
      const bar = barOf(statsOf(token.actor));
      const hpBar = Boolean(bar);
      const frac = hpBar ? Math.max(0, Math.min(1, bar.value / bar.max)) : 0;
      const statuses = [...(token.actor?.statuses ?? [])];
      const hpColor = frac > 0.5 ? "#3fa34d" : frac > 0.25 ? "#e0a800" : "#c0392b";
      g.innerHTML = `
        <circle class="select-ring" cx="${size / 2}" cy="${size / 2}" r="${size * 0.5}"/>
        <circle cx="${size / 2}" cy="${size / 2}" r="${size * 0.44}" fill="#f4f1e8" stroke="${ring}" stroke-width="8" filter="url(#shadow)"/>
        <image href="${escapeHTML(token.document.texture?.src ?? "")}" x="${size * 0.1}" y="${size * 0.1}" width="${size * 0.8}" height="${size * 0.8}" clip-path="url(#token-clip)"/>
        ${hpBar ? `<g class="hp" transform="translate(${size * 0.1},${-size * 0.4})"><rect width="${size * 0.8}" height="12" rx="4" fill="#222" opacity=".85"/>
          <rect x="2" y="2" width="${(size * 0.8 - 4) * frac}" height="8" rx="3" fill="${hpColor}"/>
          <text x="${size * 0.4}" y="-5" class="hp-text" text-anchor="middle">${escapeHTML(bar.label)}</text></g>` : ""}
        ${statuses.includes("dead") ? `<path class="dead-mark" d="M ${size * 0.2} ${size * 0.2} L ${size * 0.8} ${size * 0.8} M ${size * 0.8} ${size * 0.2} L ${size * 0.2} ${size * 0.8}"/>` : ""}
        <g class="statuses">${statuses.map((id, i) => `<g class="status" data-status="${escapeHTML(id)}" transform="translate(${size * 0.86},${size * 0.1 + i * 30})">
          <circle r="14"/><text text-anchor="middle" y="6">${escapeHTML(STATUS_ICONS[id] ?? id.slice(0, 2))}</text><title>${escapeHTML(id)}</title></g>`).join("")}</g>
        <g class="facing" data-rotation="${token.document.rotation ?? 0}" transform="rotate(${token.document.rotation ?? 0} ${size / 2} ${size / 2})">
          <path d="M ${size * 0.34} ${size * 0.9} L ${size * 0.66} ${size * 0.9} L ${size / 2} ${size * 1.06} z"/></g>
        <g class="reticle">${[0, 90, 180, 270].map((a) => `<path d="M ${size / 2} ${-size * 0.08} l -12 -16 h 24 z" transform="rotate(${a} ${size / 2} ${size / 2})"/>`).join("")}</g>
        <g class="nameplate" transform="translate(${size / 2},${size * 1.12})"><rect x="-${size * 1.05}" y="-22" width="${size * 2.1}" height="32" rx="7"/>
          <text text-anchor="middle" y="1">${escapeHTML(token.name)}</text></g>`;
      this._wire(g, token);
      this.tokens.append(g);
    }
    this._drawLines();
  }

  _drawLines() {
    this.lines.innerHTML = "";
    const from = this.canvas.tokens.controlled[0];
    if (!from) return;
    for (const to of game.user.targets) {
      if (to === from) continue;
      const a = from.center;
      const b = to.center;
      const d = this.canvas.grid.measurePath([a, b]).distance;
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      const label = `${Math.round(d * 10) / 10} ${this.canvas.grid.units}`;
      this.lines.innerHTML += `<line x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}" class="range-line"/>
        <g class="range-label" transform="translate(${mid.x},${mid.y})"><rect x="-62" y="-24" width="124" height="40" rx="10"/>
        <text text-anchor="middle" y="6" data-range="${d}">${escapeHTML(label)}</text></g>`;
    }
  }

  _wire(g, token) {
    g.addEventListener("pointerenter", () => (this.hover = token));
    g.addEventListener("pointerleave", () => this.hover === token && (this.hover = null));
    g.addEventListener("contextmenu", (ev) => {
      ev.preventDefault();
      // Right-click on your own selected token opens its HUD; on any other token, targets it.
      if (token.controlled && token.isOwner) this.hud.bind(token);
      else token.setTarget(!token.isTargeted, { releaseOthers: !ev.shiftKey });
    });
    g.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      ev.stopPropagation();
      if (ev.altKey) {
        token.setTarget(!token.isTargeted, { releaseOthers: !ev.shiftKey });
        return;
      }
      const start = this.toScene(ev);
      const origin = { x: token.document.x, y: token.document.y };
      let moved = false;
      const move = (e) => {
        const p = this.toScene(e);
        if (!moved && Math.hypot(p.x - start.x, p.y - start.y) < 6) return;
        moved = true;
        token._drag = { x: origin.x + p.x - start.x, y: origin.y + p.y - start.y };
        g.setAttribute("transform", `translate(${token.x},${token.y})`);
        this._drawLines();
      };
      const up = async () => {
        window.removeEventListener("pointermove", move);
        window.removeEventListener("pointerup", up);
        if (!moved) {
          // A second click on the same token soon after is a double-click: its sheet (Foundry's
          // Token#_onClickLeft2). Counted here because a click redraws the tokens, so the
          // browser's dblclick never sees two clicks on one element. Timed by the events' own
          // stamps, as the OS times a double-click: a busy page handles them late, not apart.
          const now = ev.timeStamp;
          const double = this._lastClick?.id === token.id && now - this._lastClick.at < DOUBLE_CLICK_MS;
          this._lastClick = double ? null : { id: token.id, at: now };
          token.control({ releaseOthers: !ev.shiftKey });
          if (double) token.actor?.sheet?.render({ force: true });
          return;
        }
        const size = this.canvas.grid.size;
        const { cols, rows } = this.canvas.scene;
        const x = Math.max(0, Math.min(cols - 1, Math.round(token._drag.x / size))) * size;
        const y = Math.max(0, Math.min(rows - 1, Math.round(token._drag.y / size))) * size;
        token._drag = null;
        if (!token.controlled) token.control({ releaseOthers: true });
        try {
          await token.document.update({ x, y });
        } catch (err) {
          ui.notifications.warn(err.message);
          this.draw();
        }
      };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", up);
    });
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") token.control();
    });
  }
}

export class Canvas {
  constructor(view) {
    this.view = view;
    this.ready = false;
    this.scene = null;
    this.grid = null;
    this.tokens = new TokenLayer(view);
    this.templates = new TemplateLayer(view);
    this.stage = new Stage();
    this.app = { view: view.root };
    this.activeLayer = this.tokens;
  }
  /** Canvas#canvasCoordinatesFromClient: a point of the window in scene coordinates. */
  canvasCoordinatesFromClient({ x, y }) {
    const p = this.view.toScene({ clientX: x, clientY: y });
    return { x: p.x, y: p.y };
  }
  get dimensions() {
    const s = this.grid.size;
    return { size: s, distance: this.grid.distance, width: this.scene.cols * s, height: this.scene.rows * s };
  }
  draw(scene) {
    this.scene = scene;
    // The world's Square Grid Diagonals setting decides the rule for every square-grid scene
    // (foundryvtt#9998), not the scene.
    this.grid = new SquareGrid({ ...scene.grid, diagonals: game.settings.get("core", "gridDiagonals") });
    this.tokens.objects.clear();
    for (const doc of scene.tokens) this.tokens.objects.set(doc.id, new Token(doc, this.tokens));
    this.view.attach(this);
    this.view.draw();
    ui.controls?.render();
    this.ready = true;
    for (const hook of ["createMeasuredTemplate", "deleteMeasuredTemplate"]) Hooks.on(hook, () => this.view.drawTemplates());
    Hooks.on("createToken", (doc) => {
      if (doc.parent !== this.scene) return;
      this.tokens.objects.set(doc.id, new Token(doc, this.tokens));
      this.view.draw();
    });
    Hooks.callAll("canvasReady", this);
  }

  /** Core's drop handling: an Actor from a compendium becomes a world actor with a token here. */
  async _onDrop(data) {
    if (data.type !== "Actor") return;
    if (!game.user.isGM) throw new Error("Only a GM can bring an actor onto the scene.");
    const source = await fromUuid(data.uuid);
    if (!source) return;
    let actor = game.actors.get(source.id);
    if (!actor || data.uuid.startsWith("Compendium.")) {
      const copy = source.toObject();
      copy._id = foundry.utils.randomID();
      copy.flags = { ...copy.flags, core: { sourceId: data.uuid } };
      actor = await CONFIG.Actor.documentClass.create(copy);
    }
    const size = this.grid.size;
    const proto = source.prototypeToken ?? {};
    // The prototype token's actorLink: an unlinked actor dropped twice gives two tokens, each
    // with its own synthetic actor (TokenDocument#actor, documents.mjs).
    await this.scene.createEmbeddedDocuments("Token", [{
      name: proto.name ?? actor.name, actorId: actor.id, actorLink: Boolean(proto.actorLink),
      x: Math.floor(data.x / size) * size, y: Math.floor(data.y / size) * size,
      width: proto.width ?? 1, height: proto.height ?? 1, disposition: proto.disposition ?? -1,
      texture: { src: new URL(proto.texture?.src ?? actor.img ?? "", location.href).pathname },
    }]);
  }
}
