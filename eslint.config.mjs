// ESLint (flat config) for the JavaScript Foundry loads (js-shim/), the sandbox table that
// imitates Foundry (sandbox/), the Node build tools (tools/*.mjs) and the JS tests. Run by `make test`.
import js from "@eslint/js";
import globals from "globals";

// What Foundry v13 puts on the page for a module (the sandbox provides the same).
const foundry = Object.fromEntries([
  "game", "canvas", "ui", "Hooks", "CONFIG", "CONST", "foundry", "ChatMessage", "Roll", "Actor",
  "Item", "User", "Scene", "TokenDocument", "Combat", "Combatant", "fromUuid", "fromUuidSync",
].map((name) => [name, "readonly"]));

export default [
  { ignores: ["node_modules/", "runtime/", "build/", "dist/", "packs/", ".venv/"] },
  js.configs.recommended,
  {
    files: ["js-shim/**/*.mjs", "sandbox/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.browser, ...foundry } },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    files: ["js-shim/engine/engine-worker.mjs"],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    // The shim's tests run under Node, with Foundry's globals faked on globalThis.
    files: ["tests/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node, ...globals.browser, ...foundry } },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    files: ["tools/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
];
