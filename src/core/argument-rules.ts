import { registerDecorator, ValidateIf } from 'class-validator';
import { createParameterDecorator } from 'type-graphql';

/** A type-graphql type function (`() => Int`, `() => [String]`). */
type ReturnTypeFunc = NonNullable<NonNullable<Parameters<typeof createParameterDecorator>[1]>['arg']>['typeFunc'];
import { BadInput } from './errors.js';

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
  /** Throws a 400 naming the field when `input` breaks the rule. */
  check(input: T): void;
}

const crossFieldRules = new WeakMap<object, CrossFieldRule<never>[]>();

/** Declares rules across the fields of an input class: `validateInput` checks them, the document states them. */
export function AcrossFields<T>(...rules: CrossFieldRule<T>[]): (target: new () => T) => void {
  return (target) => {
    crossFieldRules.set(target, [...(crossFieldRules.get(target) ?? []), ...(rules as CrossFieldRule<never>[])]);
  };
}

/** The rules declared across the fields of `target` (an input class). */
export function crossFieldRulesOf(target: unknown): readonly CrossFieldRule<unknown>[] {
  return (typeof target === 'function' ? crossFieldRules.get(target) : undefined) ?? [];
}
