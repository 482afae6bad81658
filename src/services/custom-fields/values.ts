import { calendarDay } from '../../core/dates.js';
import { BadInput, type FieldProblem } from '../../core/errors.js';
import type { CustomField, CustomFieldValue, CustomFieldValues, CustomFieldVisibility } from '../../entities/custom-field.js';

/*
 * Custom-field values: the one normal form they are stored in (`custom_fields` jsonb keyed by
 * field key) and the one text form a CSV cell carries. Contacts, memberships, import and export
 * all go through these functions (the contract of issue 38, ISSUE-38-CONTRACT.md):
 *   text → string (trimmed, at most MAX_TEXT_LENGTH), number → finite JSON number within
 *   ±MAX_NUMBER, date → 'yyyy-mm-dd', choice → one of the choices (as spelled in the definition),
 *   multi_choice → array of choices without repeats in the definition's order, yes_no → boolean.
 * A value of null, "" or [] clears the field. A retired field keeps its stored value (returned,
 * not required, not writable: sending it back unchanged is accepted, any change is a 400).
 */

/** What a value check needs of a field definition. */
export type CustomFieldDefinition = Pick<CustomField, 'id' | 'appliesTo' | 'key' | 'label' | 'kind' | 'choices' | 'required' | 'visibility' | 'position' | 'retiredAt' | 'auditId'>;

/** The longest text value, in characters. */
export const MAX_TEXT_LENGTH = 4000;
/** Numbers are kept within ±10^15, where every integer and cent is exact in a JSON (double) number. */
export const MAX_NUMBER = 1e15;
/** How multi-choice values are joined in a CSV cell; choices therefore may not contain ";". */
export const MULTI_CHOICE_SEPARATOR = '; ';
/** At most this many keys in one CustomFields object (a bound on a request's work). */
export const MAX_KEYS_PER_WRITE = 500;

const YES = new Set(['yes', 'y', 'true', '1']);
const NO = new Set(['no', 'n', 'false', '0']);
const PLAIN_DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** The field name a problem with `key` carries: `CustomFields.<key>` (a key that is not a key shortened and made printable). */
export function customFieldPath(key: string): string {
  const printable = key.replace(/[^\x20-\x7e]/g, '?');
  return `CustomFields.${printable.length > 63 ? `${printable.slice(0, 60)}...` : printable}`;
}

/** A problem with one field's value, as the BadInput every check throws. */
function invalid(field: Pick<CustomFieldDefinition, 'key'>, message: string): BadInput {
  return BadInput.field(customFieldPath(field.key), message);
}

/** The choice `text` names (case and surrounding spaces ignored), as spelled in the definition, else 400. */
function matchChoice(field: CustomFieldDefinition, text: string): string {
  const wanted = text.trim().toLowerCase();
  const choice = field.choices.find((candidate) => candidate.toLowerCase() === wanted);
  if (choice === undefined) throw invalid(field, `"${text.slice(0, 100)}" is not one of the choices (${field.choices.join(', ')})`);
  return choice;
}

/** Distinct choices in the definition's order. */
function inChoiceOrder(field: CustomFieldDefinition, choices: Iterable<string>): string[] {
  const chosen = new Set(choices);
  return field.choices.filter((choice) => chosen.has(choice));
}

function checkedText(field: CustomFieldDefinition, text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.includes('\u0000')) throw invalid(field, 'must not contain NUL characters');
  if (trimmed.length > MAX_TEXT_LENGTH) throw invalid(field, `must be at most ${MAX_TEXT_LENGTH} characters`);
  return trimmed || null;
}

function checkedNumber(field: CustomFieldDefinition, value: number): number {
  if (!Number.isFinite(value) || Math.abs(value) > MAX_NUMBER) throw invalid(field, `must be a number between -${MAX_NUMBER} and ${MAX_NUMBER}`);
  return value === 0 ? 0 : value; // -0 is 0
}

function checkedDate(field: CustomFieldDefinition, text: string): string {
  try {
    return calendarDay(text.trim(), customFieldPath(field.key));
  } catch {
    throw invalid(field, 'must be a calendar date (yyyy-mm-dd)');
  }
}

/**
 * One value as sent through the API (JSON), normalised; null clears the field. 400 naming
 * `CustomFields.<key>` for a value of the wrong kind, an unknown choice, a bad date.
 */
export function normalizeValue(field: CustomFieldDefinition, value: unknown): CustomFieldValue | null {
  if (value === null || value === undefined) return null;
  switch (field.kind) {
    case 'text':
      if (typeof value !== 'string') throw invalid(field, 'must be text');
      return checkedText(field, value);
    case 'number':
      if (typeof value !== 'number') throw invalid(field, 'must be a number');
      return checkedNumber(field, value);
    case 'date':
      if (typeof value !== 'string') throw invalid(field, 'must be a date (yyyy-mm-dd)');
      return value.trim() ? checkedDate(field, value) : null;
    case 'choice':
      if (typeof value !== 'string') throw invalid(field, 'must be one of the choices');
      return value.trim() ? matchChoice(field, value) : null;
    case 'multi_choice': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalid(field, 'must be a list of choices');
      if (value.length > field.choices.length * 2) throw invalid(field, 'lists too many choices');
      const chosen = inChoiceOrder(field, (value as string[]).map((item) => matchChoice(field, item)));
      return chosen.length ? chosen : null;
    }
    case 'yes_no':
      if (typeof value !== 'boolean') throw invalid(field, 'must be true or false');
      return value;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The values a write stores, from the `definitions` of the record's kind, the `input` sent (a
 * JSON object keyed by field key; null or absent: no change) and the record's `previous` values:
 * keys sent replace (null clears), keys not sent are kept. Every problem is reported at once, in
 * one 400 naming each `CustomFields.<key>`: an unknown key, a value of the wrong kind, an unknown
 * choice, a change to a retired field, a required field left without a value.
 */
export function normalizeWithDefinitions(
  definitions: readonly CustomFieldDefinition[], input: unknown, previous: CustomFieldValues = {},
): CustomFieldValues {
  if (input !== null && input !== undefined && (typeof input !== 'object' || Array.isArray(input))) {
    throw BadInput.field('CustomFields', 'must be an object keyed by custom field key');
  }
  const sent = Object.entries((input ?? {}) as Record<string, unknown>);
  if (sent.length > MAX_KEYS_PER_WRITE) throw BadInput.field('CustomFields', `must have at most ${MAX_KEYS_PER_WRITE} keys`);
  const byKey = new Map(definitions.map((field) => [field.key, field]));
  const merged: Record<string, CustomFieldValue | null> = { ...previous };
  const problems: FieldProblem[] = [];
  const report = (error: unknown) => {
    if (!(error instanceof BadInput)) throw error;
    problems.push(...error.problems);
  };
  for (const [key, value] of sent) {
    const field = byKey.get(key);
    try {
      if (!field) throw BadInput.field(customFieldPath(key), 'is not a custom field of this record');
      if (field.retiredAt) {
        if (!sameValue(value, previous[key])) throw invalid(field, 'is retired: its value is kept but cannot change');
        continue;
      }
      merged[key] = normalizeValue(field, value);
    } catch (error) {
      report(error);
    }
  }
  for (const field of definitions) {
    if (field.required && !field.retiredAt && (merged[field.key] === null || merged[field.key] === undefined) && !problems.some((problem) => problem.field === customFieldPath(field.key))) {
      problems.push({ field: customFieldPath(field.key), message: 'is required' });
    }
  }
  if (problems.length) throw new BadInput(problems, problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
  // Stored in the definitions' order (then any key without a definition, which only old data could hold).
  const ordered: CustomFieldValues = {};
  for (const key of [...definitions.map((field) => field.key), ...Object.keys(merged)]) {
    const value = merged[key];
    if (value !== null && value !== undefined && !(key in ordered)) ordered[key] = value;
  }
  return ordered;
}

/** Who reads: staff see every field; signed-in members those for members and the public; the public only public ones. */
export type CustomFieldAudience = 'staff' | 'members' | 'public';

const AUDIENCE_SEES: Record<CustomFieldAudience, readonly CustomFieldVisibility[]> = {
  staff: ['staff', 'members', 'public'],
  members: ['members', 'public'],
  public: ['public'],
};

/** The definitions `audience` may read, in their order. */
export function fieldsVisibleTo(definitions: readonly CustomFieldDefinition[], audience: CustomFieldAudience): CustomFieldDefinition[] {
  return definitions.filter((field) => AUDIENCE_SEES[audience].includes(field.visibility));
}

/** Only the values `audience` may read (staff: all, retired fields' values included). */
export function visibleValues(values: CustomFieldValues | null | undefined, definitions: readonly CustomFieldDefinition[], audience: CustomFieldAudience): CustomFieldValues {
  if (!values) return {};
  if (audience === 'staff') return values;
  const visible: CustomFieldValues = {};
  for (const field of fieldsVisibleTo(definitions, audience)) if (values[field.key] !== undefined) visible[field.key] = values[field.key];
  return visible;
}

/**
 * The one text form of a value in a CSV cell, used by import and export alike so that an export
 * re-imports unchanged: text as is, number as a plain decimal, date yyyy-mm-dd, choice as
 * spelled, multi-choice joined with "; " in the definition's order, yes/no "Yes"/"No"; no value
 * is "". `parse` reads that form (and, for yes/no, y/n/true/false/1/0, any case) into a stored
 * value, or throws the BadInput normalising would.
 */
export const customFieldCell = {
  format(field: CustomFieldDefinition, value: CustomFieldValue | null | undefined): string {
    if (value === null || value === undefined) return '';
    switch (field.kind) {
      case 'number':
        return typeof value === 'number' ? plainDecimal(value) : String(value);
      case 'multi_choice':
        return Array.isArray(value) ? inChoiceOrder(field, value).concat(value.filter((item) => !field.choices.includes(item))).join(MULTI_CHOICE_SEPARATOR) : String(value);
      case 'yes_no':
        return value === true ? 'Yes' : value === false ? 'No' : String(value);
      default:
        return String(value);
    }
  },

  parse(field: CustomFieldDefinition, cellText: string): CustomFieldValue | null {
    const text = cellText.trim();
    if (!text) return null;
    switch (field.kind) {
      case 'number':
        if (!PLAIN_DECIMAL.test(text)) throw invalid(field, 'must be a plain decimal number (e.g. 1234.5)');
        return checkedNumber(field, Number(text));
      case 'multi_choice':
        return normalizeValue(field, text.split(';').map((item) => item.trim()).filter(Boolean));
      case 'yes_no': {
        const lower = text.toLowerCase();
        if (YES.has(lower)) return true;
        if (NO.has(lower)) return false;
        throw invalid(field, 'must be Yes or No');
      }
      default:
        return normalizeValue(field, text);
    }
  },
};

/** A number as a plain decimal, never in exponent form (1e-7 → "0.0000001"). */
function plainDecimal(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : text;
}
