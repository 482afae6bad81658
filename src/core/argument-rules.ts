import { registerDecorator, ValidateIf } from 'class-validator';
import { createParameterDecorator } from 'type-graphql';

/** A type-graphql type function (`() => Int`, `() => [String]`). */
type ReturnTypeFunc = NonNullable<NonNullable<Parameters<typeof createParameterDecorator>[1]>['arg']>['typeFunc'];
import { BadInput } from './errors.js';
import type { Config } from './config.js';

/*
 * Rules for values a GraphQL type cannot state (a String that must be a category type, an ISO
 * instant, a cursor): each rule is one object holding both the check the server runs and the
 * JSON Schema the OpenAPI document states, so the two cannot drift. A scalar argument takes its
 * rule with `@RuledArg` (the resolver gets the parsed value); a field of an input or arguments
 * class with `@Conforms` (class-validator runs the check). The document generator reads both
 * (rest/openapi-constraints.ts).
 */

type JsonSchema = Record<string, unknown>;

export interface ArgumentRule<T = unknown, Given = string> {
  /** What the OpenAPI document states for the value (JSON Schema keywords; may be stricter than `parse`, never looser). */
  readonly schema: JsonSchema;
  /** The value the given one (text, or a number for an Int argument) stands for; a 400 naming `field` when it is not one. */
  parse(given: Given, field: string): T;
}

/** Years 0001 to 9999, and the days each month has (29 February left out: the document may be stricter than the server, never looser). */
export const YEAR_PATTERN = '(000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})';
/** Years 0002 to 9998: an instant with an offset stays within 0001-9999 in UTC. */
const INSTANT_YEAR_PATTERN = '(000[2-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-8]\\d{3}|9[0-8]\\d{2}|99[0-8]\\d|999[0-8])';
export const MONTH_DAY_PATTERN = '((0[13578]|1[02])-(0[1-9]|[12]\\d|3[01])|(0[469]|11)-(0[1-9]|[12]\\d|30)|02-(0[1-9]|1\\d|2[0-8]))';
const TIME_PATTERN = '([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?';

/**
 * An ISO 8601 day, optionally with a time after T (JavaScript reads a space-separated one for
 * some years only) and an offset of at most 14 hours (the real ones; every check here takes them).
 */
export function isoDateTimePattern(year = YEAR_PATTERN): string {
  return `^${year}-${MONTH_DAY_PATTERN}(T${TIME_PATTERN}(Z|[+-](0\\d|1[0-4]):?[0-5]\\d)?)?$`;
}

/** An ISO 8601 instant checked by `parse` (its date, time and offset real, within the years 0001-9999 in UTC). */
export function instantRule<T>(parse: (text: string, field: string) => T): ArgumentRule<T> {
  return {
    schema: { type: 'string', maxLength: 40, pattern: isoDateTimePattern(INSTANT_YEAR_PATTERN), description: 'An ISO 8601 date or date-time (no offset: UTC).' },
    parse,
  };
}

/** A calendar day: yyyy-mm-dd, or the day of an ISO 8601 date-time (its time is not read). */
export const DAY_RULE: ArgumentRule<Date> = {
  schema: { type: 'string', maxLength: 40, pattern: isoDateTimePattern(), description: 'A date (yyyy-mm-dd; the day of a date-time is taken).' },
  parse(value, field) {
    const match = /^(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec(value.trim());
    const day = match ? new Date(`${match[1]}T00:00:00Z`) : null;
    if (!match || !day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== match[1] || match[1] < '0001-01-01') {
      throw BadInput.field(field, 'must be a date (yyyy-mm-dd)');
    }
    return day;
  },
};

/** One of `choices`, in any case (answered as written in `choices`). */
export function choiceRule<T extends string>(choices: readonly T[]): ArgumentRule<T> {
  return {
    schema: { type: 'string', enum: [...choices], description: `One of ${choices.join(', ')} (any case).` },
    parse(text, field) {
      const choice = choices.find((candidate) => candidate.toLowerCase() === text.trim().toLowerCase());
      if (choice === undefined) throw BadInput.field(field, `must be one of ${choices.join(', ')}`);
      return choice;
    },
  };
}

/** true or false (also 1 or 0), in any case. */
export const FLAG_RULE: ArgumentRule<boolean> = {
  schema: { type: 'string', enum: ['true', 'false', '1', '0'], description: 'true or false (also 1 or 0; any case).' },
  parse(text, field) {
    const lower = text.trim().toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    throw BadInput.field(field, 'must be true or false');
  },
};

/** An integer from `minimum` to `maximum` (an Int argument). */
export function rangeRule(minimum: number, maximum: number): ArgumentRule<number, number> {
  return {
    schema: { type: 'integer', minimum, maximum },
    parse(given, field) {
      if (!Number.isInteger(given) || given < minimum || given > maximum) throw BadInput.field(field, `must be an integer from ${minimum} to ${maximum}`);
      return given;
    },
  };
}

/** Text of at most `maxLength` characters. */
export function textRule(maxLength: number): ArgumentRule<string> {
  return {
    schema: { type: 'string', maxLength },
    parse(text, field) {
      if (text.length > maxLength) throw BadInput.field(field, `must be at most ${maxLength} characters`);
      return text;
    },
  };
}

const rulesOfArguments = new WeakMap<object, ArgumentRule<unknown, never>>();

/**
 * A String argument (or, with `type: Int`, an Int one) checked by `rule` after the caller is
 * settled (type-graphql resolves parameters after `@Authorized`); the resolver gets the parsed
 * value, null when none was given. A 400 names the argument (REST: the documented parameter,
 * rest/gateway/responses.ts).
 */
export function RuledArg<Given>(
  name: string, rule: ArgumentRule<unknown, Given>, options: { nullable?: boolean; description?: string; type?: ReturnTypeFunc } = {},
): ReturnType<typeof createParameterDecorator> {
  const { type = () => String, ...argOptions } = options;
  const parse = ({ args }: { args: Record<string, unknown> }) => {
    const value = args[name];
    return value === null || value === undefined ? null : rule.parse(value as Given, name);
  };
  rulesOfArguments.set(parse, rule);
  return createParameterDecorator(parse, { arg: { name, typeFunc: type, options: argOptions } });
}

/** The rule a `@RuledArg` parameter resolver checks (type-graphql keeps the resolver in its parameter metadata). */
export function ruleOfArgument(parameterResolver: unknown): ArgumentRule<unknown, never> | undefined {
  return typeof parameterResolver === 'function' ? rulesOfArguments.get(parameterResolver) : undefined;
}

/** A field of an input or arguments class checked by `rule` (a class-validator rule named `conforms`, constraint: the rule). */
export function Conforms(rule: ArgumentRule<unknown>): PropertyDecorator {
  return (target, propertyName) => registerDecorator({
    name: 'conforms',
    target: target.constructor,
    propertyName: String(propertyName),
    constraints: [rule],
    validator: {
      validate: (value: unknown) => value === null || value === undefined || problemOf(rule, value) === null,
      defaultMessage: (args) => problemOf(rule, args?.value) ?? 'is not valid',
    },
  });
}

/** What is wrong with `value` by `rule` (the message of its 400), or null when it passes. */
function problemOf(rule: ArgumentRule<unknown>, value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  try {
    rule.parse(value, '');
    return null;
  } catch (error) {
    return error instanceof BadInput ? error.problems[0]?.message ?? error.message : 'is not valid';
  }
}

/** The field's rules skip a blank string (it means none, or the default): the document offers "" besides them (rest/openapi-constraints.ts). */
export function UnlessBlank(): PropertyDecorator {
  return ValidateIf((_input: object, value: unknown) => !(typeof value === 'string' && value.trim() === ''));
}

/** A rule across the fields of an input class, which no one field's rule can state (a field required when another is true). */
export interface CrossFieldRule<T> {
  /** JSON Schema keywords the input satisfies (the document adds them to the model under `allOf`). */
  readonly schema: JsonSchema;
  /** Sentences the document adds to fields' descriptions (by field), for what `schema` says in a vendor keyword or not at all. */
  readonly notes?: Readonly<Record<string, string>>;
  /** The operation's argument value the rule holds for (absent: every one): a path id 0 that creates (`whenArgument`). */
  readonly argumentIs?: { readonly argument: string; readonly equals: unknown };
  /** The configurations the rule holds in (absent: every one): checked and stated only there. */
  appliesIn?(config: Config): boolean;
  /** Throws a 400 naming the field when `input` breaks the rule. */
  check(input: T): void;
}

const crossFieldRules = new WeakMap<object, CrossFieldRule<never>[]>();

/** Declares rules across the fields of an input class (and of the classes extending it): `validateInput` checks them, the document states them. */
export function AcrossFields<T>(...rules: CrossFieldRule<T>[]): (target: abstract new () => T) => void {
  return (target) => {
    crossFieldRules.set(target, [...(crossFieldRules.get(target) ?? []), ...(rules as CrossFieldRule<never>[])]);
  };
}

/** The rules declared across the fields of `target` (an input class) and of the classes it extends. */
export function crossFieldRulesOf(target: unknown): readonly CrossFieldRule<unknown>[] {
  const rules: CrossFieldRule<unknown>[] = [];
  for (let type = target; typeof type === 'function' && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    rules.unshift(...((crossFieldRules.get(type) ?? []) as CrossFieldRule<unknown>[]));
  }
  return rules;
}

/** Whether `rule` holds in `config` (absent: a document of no one configuration, which states only the rules of every one). */
export function holdsIn(rule: CrossFieldRule<unknown>, config: Config | undefined): boolean {
  return !rule.appliesIn || (config !== undefined && rule.appliesIn(config));
}

const rulesOfOperations = new WeakMap<object, readonly CrossFieldRule<never>[]>();

/** Remembers the rules an argument's own validate function checks beside its type's (`@Arg(..., { validateFn })`), for the document. */
export function registerArgumentRules(validateFn: object, rules: readonly CrossFieldRule<never>[]): void {
  rulesOfOperations.set(validateFn, rules);
}

/** The rules an argument's validate function checks beside its type's. */
export function argumentCrossFieldRules(validateFn: unknown): readonly CrossFieldRule<unknown>[] {
  return ((typeof validateFn === 'function' ? rulesOfOperations.get(validateFn) : undefined) ?? []);
}

/** `rule`, holding only in the configurations `applies` admits; `why` goes to the fields' descriptions (by field) where it holds. */
export function inConfigurations<T>(applies: (config: Config) => boolean, rule: CrossFieldRule<T>, why: Readonly<Record<string, string>>): CrossFieldRule<T> {
  return { ...rule, notes: { ...rule.notes, ...why }, appliesIn: applies };
}

/*
 * Rules across fields made of one definition each: a test of the input (`FieldTest`) is both a
 * predicate the server evaluates and the JSON Schema that holds exactly when it does, so `when`
 * states "if this, then that" as `if`/`then` and checks it with the same two tests. Comparisons
 * JSON Schema cannot state (a field not before another, a day not after today) are stated with
 * the vendor keywords of `COMPARISON_KEYWORDS` beside a description sentence.
 */

/** A test of an input object: `holds` as the server evaluates it, `schema` the JSON Schema an object satisfies exactly when it holds. */
export interface FieldTest {
  readonly schema: JsonSchema;
  holds(input: object): boolean;
}

/** The value at a dotted path of an input (`ActiveDates.End`). */
function valueAt(input: object, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), input);
}

/** `schema` for the value at a dotted path; `required`: the path's fields must be given (else: only when they are). */
function atPath(path: string, schema: JsonSchema, required: boolean): JsonSchema {
  const [first, ...rest] = path.split('.');
  const inner = rest.length ? atPath(rest.join('.'), schema, required) : schema;
  return { ...(required ? { required: [first] } : {}), properties: { [first]: inner } };
}

/** No value: absent, null, 0, false or a blank string (what the services read as "not given"). */
export function isNone(value: unknown): boolean {
  return value === null || value === undefined || value === 0 || value === false || (typeof value === 'string' && value.trim() === '');
}

const NONE_SCHEMA: JsonSchema = { anyOf: [{ type: 'null' }, { const: 0 }, { const: false }, { type: 'string', pattern: '^\\s*$' }] };

/** The field holds one of `values` (exactly as written). */
export function isOneOf(field: string, values: readonly unknown[]): FieldTest {
  return { schema: atPath(field, { enum: [...values] }, true), holds: (input) => values.includes(valueAt(input, field)) };
}

/** The field is given: not absent, null, 0, false or blank. */
export function isGiven(field: string): FieldTest {
  return { schema: atPath(field, { not: NONE_SCHEMA }, true), holds: (input) => !isNone(valueAt(input, field)) };
}

/** The field is absent, or given. */
export function isAbsentOrGiven(field: string): FieldTest {
  return { schema: atPath(field, { not: NONE_SCHEMA }, false), holds: (input) => valueAt(input, field) === undefined || !isNone(valueAt(input, field)) };
}

/** The field is absent or holds one of `values` (exactly as written). */
export function isAbsentOrOneOf(field: string, values: readonly unknown[]): FieldTest {
  return { schema: atPath(field, { enum: [...values] }, false), holds: (input) => valueAt(input, field) === undefined || values.includes(valueAt(input, field)) };
}

/** The field is present: not absent, not null (an empty string or 0 is present). */
export function isPresent(field: string): FieldTest {
  return { schema: atPath(field, { not: { type: 'null' } }, true), holds: (input) => valueAt(input, field) !== null && valueAt(input, field) !== undefined };
}

/** Every one of `tests` holds. */
export function everyOf(...tests: FieldTest[]): FieldTest {
  return { schema: { allOf: tests.map((test) => test.schema) }, holds: (input) => tests.every((test) => test.holds(input)) };
}

/** `test` holds of the object at the dotted path `at` (which is given). */
export function within(at: string, test: FieldTest): FieldTest {
  return {
    schema: atPath(at, test.schema, true),
    holds: (input) => {
      const inner = valueAt(input, at);
      return inner !== null && typeof inner === 'object' && test.holds(inner);
    },
  };
}

/** The list field holds at least one entry. */
export function hasEntries(field: string): FieldTest {
  return { schema: atPath(field, { type: 'array', minItems: 1 }, true), holds: (input) => (valueAt(input, field) as unknown[] | null | undefined ?? []).length > 0 };
}

/** The list field holds no entry (absent, null or empty). */
export function hasNoEntries(field: string): FieldTest {
  return { schema: atPath(field, { anyOf: [{ type: 'null' }, { type: 'array', maxItems: 0 }] }, false), holds: (input) => !(valueAt(input, field) as unknown[] | null | undefined)?.length };
}

/** The field is not given (absent, null, 0, false or blank). */
export function isNotGiven(field: string): FieldTest {
  return { schema: atPath(field, NONE_SCHEMA, false), holds: (input) => isNone(valueAt(input, field)) };
}

/** At least one of `tests` holds. */
export function eitherOf(...tests: FieldTest[]): FieldTest {
  return { schema: { anyOf: tests.map((test) => test.schema) }, holds: (input) => tests.some((test) => test.holds(input)) };
}

/**
 * `rule`, holding when the operation's `argument` (not a field of the input: a path id) equals
 * `equals`; an `alsoKeeping` rule. The document states it on the body as the vendor keyword
 * `x-when-parameter: { parameter, equals, then }` (JSON Schema cannot relate a path to a body).
 */
export function whenArgument<T>(argument: string, equals: unknown, rule: CrossFieldRule<T>): CrossFieldRule<T> {
  return { ...rule, argumentIs: { argument, equals } };
}

/** `requirement` always holds (else a 400 naming `field` with `message`). */
export function always<T extends object>(requirement: FieldTest, field: string, message: string): CrossFieldRule<T> {
  return {
    schema: requirement.schema,
    check(input) {
      if (!requirement.holds(input)) throw BadInput.field(field, message);
    },
  };
}

/** When `condition` holds, `requirement` must (else a 400 naming `field` with `message`): stated as `if`/`then`. */
export function when<T extends object>(condition: FieldTest, requirement: FieldTest, field: string, message: string): CrossFieldRule<T> {
  return {
    schema: { if: condition.schema, then: requirement.schema },
    check(input) {
      if (condition.holds(input) && !requirement.holds(input)) throw BadInput.field(field, message);
    },
  };
}

/** The field, when given, is one that `rule` reads as `expected` (the enum states those of `rule`'s enum; null or absent: not given). */
export function readsAs<T extends object, V>(field: string, rule: ArgumentRule<V>, expected: V, message: string): CrossFieldRule<T> {
  const values = ((rule.schema.enum ?? []) as string[]).filter((value) => rule.parse(value, field) === expected);
  return {
    schema: atPath(field, { enum: [null, ...values], description: `${field} ${message}.` }, false),
    check(input) {
      const value = valueAt(input, field);
      if (typeof value === 'string' && rule.parse(value, field) !== expected) throw BadInput.field(field, message);
    },
  };
}

/**
 * A list of entries of which at most one is marked (`marker` true), and exactly one when it has
 * two or more (a single entry is the marked one by default): `contains` with `maxContains`.
 */
export function oneMarked<T extends object>(list: string, marker: string): CrossFieldRule<T> {
  const marked = { required: [marker], properties: { [marker]: { const: true } } };
  return {
    schema: atPath(list, { allOf: [{ contains: marked, minContains: 0, maxContains: 1 }, { if: { minItems: 2 }, then: { contains: marked } }] }, false),
    check(input) {
      const entries = valueAt(input, list);
      if (!Array.isArray(entries)) return;
      const count = entries.filter((entry) => (entry as Record<string, unknown> | null)?.[marker] === true).length;
      if (count > 1 || (count === 0 && entries.length > 1)) throw BadInput.field(list, `exactly one entry must be ${marker} (${count} are)`);
    },
  };
}

/**
 * Vendor keywords of the document for comparisons JSON Schema cannot state, each on the field it
 * constrains, its value naming a sibling field or `today`; a value that is not given (null, blank)
 * or not of the compared kind is not compared. test/openapi-properties.test.ts teaches them to ajv.
 */
export const COMPARISON_KEYWORDS = {
  /** A number (or the whole number a string holds) not less than the sibling field's. */
  notLessThan: 'x-not-less-than',
  /** A day (yyyy-mm-dd, or a date-time's day) not before the sibling field's day. */
  notBefore: 'x-not-before',
  /** A day not after the named day: `today` (UTC). */
  notAfter: 'x-not-after',
} as const;

/** The number a value stands for (a number, or a string of digits), else null. */
export function comparableNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : null;
}

/** The day (yyyy-mm-dd) a value names (a date, or a date-time's day), else null. */
export function comparableDay(value: unknown): string | null {
  return typeof value === 'string' ? /^\s*(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec(value)?.[1] ?? null : null;
}

/** A comparison stated as `{ [keyword]: named }` on the field, with the description sentence; `broken` decides as the server does. */
function comparison<T extends object>(field: string, keyword: string, named: string, message: string, broken: (input: object) => boolean): CrossFieldRule<T> {
  return {
    schema: atPath(field, { [keyword]: named }, false),
    notes: { [field.split('.')[0]]: `${field} ${message}.` },
    check(input) {
      if (broken(input)) throw BadInput.field(field, message);
    },
  };
}

/** The sibling of a dotted field (`ActiveDates.End`, `Start` → `ActiveDates.Start`). */
function sibling(field: string, other: string): string {
  return [...field.split('.').slice(0, -1), other].join('.');
}

/** Whether `read` makes both values comparable and the first less than the second. */
function lessThan<V extends number | string>(read: (value: unknown) => V | null, first: unknown, second: unknown): boolean {
  const [a, b] = [read(first), read(second)];
  return a !== null && b !== null && a < b;
}

/** The field's number is not less than the sibling `other`'s (both given). */
export function notLessThan<T extends object>(field: string, other: string): CrossFieldRule<T> {
  return comparison(field, COMPARISON_KEYWORDS.notLessThan, other, `must not be less than ${other}`,
    (input) => lessThan(comparableNumber, valueAt(input, field), valueAt(input, sibling(field, other))));
}

/** The field's day is not before the sibling `other`'s (both given). */
export function notBefore<T extends object>(field: string, other: string): CrossFieldRule<T> {
  return comparison(field, COMPARISON_KEYWORDS.notBefore, other, `must not be before ${sibling(field, other)}`,
    (input) => lessThan(comparableDay, valueAt(input, field), valueAt(input, sibling(field, other))));
}

/** The field's day is not after today (UTC, as dates.ts's todayUtc, which imports this module); `instead` ends the message (what to do instead). */
export function notAfterToday<T extends object>(field: string, instead: string): CrossFieldRule<T> {
  return comparison(field, COMPARISON_KEYWORDS.notAfter, 'today', `must not be after today (${instead})`,
    (input) => lessThan(comparableDay, new Date().toISOString().slice(0, 10), valueAt(input, field)));
}

/** Checks `input` against every rule declared across the fields of `target` (for a service also reached without GraphQL's validation: imports, the seed). */
export function checkAcrossFields(target: abstract new () => object, input: object): void {
  for (const rule of crossFieldRulesOf(target)) rule.check(input);
}
