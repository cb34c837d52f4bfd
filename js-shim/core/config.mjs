// Module constants. Rulesets, their table features and their units live in Python: the shim
// learns them from the engine's catalog (bridge op `hello`, js-shim/world/catalog.mjs).
export const MODULE_ID = "firefight";
// The action a request without one is (the engine's ActionRequest default): Shoot.
export const DEFAULT_ACTION = "attack";
export const ENTROPY_START = 64;
export const ENTROPY_MAX = 8192;
