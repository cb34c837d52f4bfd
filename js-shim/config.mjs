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
