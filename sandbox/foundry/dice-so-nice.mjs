// A stand-in for Dice So Nice (?dsn=<ms>): it "rolls" a message's dice for <ms> and reports them
// done, marking the message as DSN's v13 code does (Dice So Nice, module/main.js and
// module/Dice3D.js, read from its public source):
//   - createChatMessage: a message with dice whose content this user can see (DSN's
//     shouldInterceptMessage: chatMessage.isContentVisible, unless ghost dice) is marked
//     `message._dice3danimating = true`, then DSN's renderRolls animates it; when done it deletes
//     the mark and calls Hooks.callAll("diceSoNiceRollComplete", message.id).
//   - game.dice3d.waitFor3DAnimationByMessageID(id): resolves at once when 3D dice are not shown
//     on this client (Dice3D.CONFIG().visibility === "none") or the world setting
//     "dice-so-nice.immediatelyDisplayChatMessages" is on; otherwise on that message's
//     diceSoNiceRollComplete.
// ?dsnSkip= makes this client one on which DSN does not animate:
//   hidden     3D dice hidden on this client (visibility "none"): the message is marked as DSN's
//              createChatMessage hook marks it, nothing animates and nothing is ever reported
//              (the hook is not guaranteed: foundry-v13-audit row 9); waitFor... resolves at once.
//   immediate  the world setting immediatelyDisplayChatMessages: the dice animate and are
//              reported, but the message is shown at once and waitFor... resolves at once.
import { Hooks } from "./hooks.mjs";
import { contentVisible } from "./ui.mjs";

export function installDiceSoNice({ ms = 1500, skip = "" } = {}) {
  const hidden = skip === "hidden";
  const immediate = skip === "immediate";
  if (skip && !hidden && !immediate) throw new Error(`Sandbox: dsnSkip=${skip} (choose hidden or immediate)`);
  game.settings.register("dice-so-nice", "immediatelyDisplayChatMessages", {
    name: "Immediately display chat messages", scope: "world", config: false, type: Boolean, default: immediate,
  });
  const animate = () => new Promise((resolve) => setTimeout(() => resolve(true), ms));
  game.dice3d = {
    isEnabled: () => !hidden,
    showForRoll: () => (hidden ? Promise.resolve(false) : animate()),
    waitFor3DAnimationByMessageID(messageId) {
      if (hidden || game.settings.get("dice-so-nice", "immediatelyDisplayChatMessages")) return Promise.resolve(true);
      return new Promise((resolve) => {
        const id = Hooks.on("diceSoNiceRollComplete", (done) => {
          if (done !== messageId) return;
          Hooks.off("diceSoNiceRollComplete", id);
          resolve(true);
        });
      });
    },
  };
  Hooks.on("createChatMessage", (message) => {
    const dice = (message.rolls ?? []).some((r) => (r.dice ?? []).length > 0);
    if (!dice || !contentVisible(message)) return;
    message._dice3danimating = true;
    if (hidden) return;
    document.body.classList.add("dice-rolling");
    animate().then(() => {
      document.body.classList.remove("dice-rolling");
      delete message._dice3danimating;
      Hooks.callAll("diceSoNiceRollComplete", message.id);
    });
  });
}
