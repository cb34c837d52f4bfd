// Localize with an English fallback, so a missing key never shows raw.
export function t(key, fallback = key, data = undefined) {
  const i18n = globalThis.game?.i18n;
  let text = key;
  if (i18n) text = data ? i18n.format(key, data) : i18n.localize(key);
  if (!text || text === key) {
    text = fallback;
    if (data) text = text.replace(/\{(\w+)\}/g, (m, k) => (k in data ? String(data[k]) : m));
  }
  return text;
}
