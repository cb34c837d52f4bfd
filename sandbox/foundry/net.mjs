// The sandbox's "server": every open table page (tab) of this origin is one client, and they
// keep each other in step over a BroadcastChannel: document changes, world settings, the module
// socket and who is connected. A page that opens while others are open asks them for the world.
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("firefight-sandbox") : null;
const handlers = new Map(); // type -> [fn]
export const clientId = Math.random().toString(36).slice(2, 10);

export function send(type, data = {}) {
  channel?.postMessage({ ...data, type, from: clientId });
}

export function on(type, fn) {
  if (!handlers.has(type)) handlers.set(type, []);
  handlers.get(type).push(fn);
}

if (channel) {
  channel.onmessage = (ev) => {
    const msg = ev.data;
    if (!msg || msg.from === clientId) return;
    for (const fn of handlers.get(msg.type) ?? []) {
      try {
        fn(msg);
      } catch (err) {
        console.error("Sandbox net:", err);
      }
    }
  };
}

/** Ask open pages for their world; resolves with the first snapshot, or null after `ms`. */
export function requestSnapshot(ms = 400, hello = {}) {
  if (!channel) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    on("snapshot", (msg) => {
      if (msg.to !== clientId) return;
      clearTimeout(timer);
      resolve(msg.world);
    });
    send("hello", hello);
  });
}
