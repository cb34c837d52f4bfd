// foundry.data.fields subset: DataField and StringField, as far as a setting's `type` uses them
// (SettingConfig `type`: a constructor "or DataField instance", foundryvtt.com/api/interfaces/
// foundry.types.SettingConfig.html; dnd5e 5.3.3 module/settings.mjs registers settings with
// `type: new StringField({required, blank, initial, choices: () => ...})`).
//
// StringField options (foundryvtt.com/api/classes/foundry.data.fields.StringField.html): `blank`
// "Is the string allowed to be blank (empty)?"; `choices` "An array of values or an object of
// values/labels which represent allowed choices for the field. A function may be provided which
// dynamically returns the array of choices"; `initial` "The initial value of a field, or a function
// which assigns that initial value" (DataFieldOptions).

export class DataField {
  constructor(options = {}) {
    this.options = options;
    Object.assign(this, { required: false, nullable: false, initial: undefined, label: "", hint: "" }, options);
  }
  /** The initial value (a function's result). */
  getInitialValue(data) {
    return typeof this.initial === "function" ? this.initial(data) : this.initial;
  }
  /** A validation error message for a value, or null. */
  validate(value) {
    if (value === null || value === undefined) return this.nullable ? null : "may not be null";
    return this._validateType(value);
  }
  _validateType() {
    return null;
  }
}

/** A field's choices as {value: label}, the function asked now (null: no choices). */
export function fieldChoices(field) {
  let choices = field?.choices;
  if (typeof choices === "function") choices = choices();
  if (!choices) return null;
  if (Array.isArray(choices)) return Object.fromEntries(choices.map((c) => [c, c]));
  return { ...choices };
}

export class StringField extends DataField {
  constructor(options = {}) {
    super({ blank: true, choices: undefined, trim: true, ...options });
  }
  _validateType(value) {
    if (typeof value !== "string") return "must be a string";
    if (!this.blank && !value) return "may not be a blank string";
    const choices = fieldChoices(this);
    if (choices && !Object.hasOwn(choices, value)) return `${value} is not a valid choice`;
    return null;
  }
}
