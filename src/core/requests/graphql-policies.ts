import { getMetadataStorage as validationRules, validate, type ValidationError } from 'class-validator';
import { getMetadataStorage, type AuthCheckerFn, type ResolverData } from 'type-graphql';
import type { Config } from '../config.js';
import type { RequestContext } from '../context.js';
import { crossFieldRulesOf, holdsIn, registerArgumentRules, type CrossFieldRule } from '../argument-rules.js';
import { BadInput, type FieldProblem } from '../errors.js';
import { ROLES, type Role } from '../../entities/login.js';
import { isOneOf } from '../values.js';

/**
 * `@Authorized()` needs a caller (else 401); `@Authorized('staff')` needs that role (else 403).
 * Throwing our own errors keeps the status right on both interfaces. A REST request's field was
 * checked by the gateway before the request was read (`ctx.authorize`), and is not checked again.
 */
export const authChecker: AuthCheckerFn<RequestContext, Role> = ({ context, info }, roles) => {
  context.authorize(`${info.parentType.name}.${info.fieldName}`, roles);
  return true;
};

/**
 * Validates arguments: no text anywhere may hold a NUL character (PostgreSQL cannot store one),
 * and input objects must pass their class-validator rules. Failures name the documented fields.
 * Synchronous (no promise) unless class-validator has rules to run: every argument of every
 * operation passes here, most of them scalars or inputs without such rules.
 */
export function validateInput(argValue: unknown, _type?: unknown, resolverData?: Pick<ResolverData, 'context'>): Promise<void> | undefined {
  const nul = nulPath(argValue);
  if (nul !== null) throw BadInput.field(nul || 'value', 'must not contain NUL characters'); // a scalar argument has no path
  // A scalar has no rules beyond its type.
  if (argValue === null || typeof argValue !== 'object') return undefined;
  const values: unknown[] = Array.isArray(argValue) ? argValue : [argValue];
  const config = (resolverData?.context as RequestContext | undefined)?.app.config;
  if (values.some(hasClassValidatorRules)) return validateAll(values, config);
  checkAcrossFields(values, config);
  return undefined;
}

/** class-validator's rules on each value, then (each field right on its own) the rules across fields. */
async function validateAll(values: unknown[], config: Config | undefined): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const value of values) {
    if (!hasClassValidatorRules(value)) continue;
    problems.push(...flatten(await validate(value, { skipMissingProperties: true, forbidUnknownValues: false })));
  }
  if (problems.length) throw new BadInput(problems, problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
  checkAcrossFields(values, config);
}

/** The rules across fields of each value's class (those of the server's configuration). */
function checkAcrossFields(values: unknown[], config: Config | undefined): void {
  for (const value of values) {
    if (value === null || typeof value !== 'object') continue;
    for (const rule of crossFieldRulesOfClass(value.constructor)) if (holdsIn(rule, config)) rule.check(value);
  }
}

/**
 * `@Arg` options for an input that must also keep `rules` in this operation only (a save that
 * confines a shared input type): checked after its type's rules, stated in the document for this
 * operation's body (rest/openapi-constraints.ts).
 */
export function alsoKeeping<T>(...rules: CrossFieldRule<T>[]): { validateFn: (value: unknown, type: unknown, data: ResolverData) => Promise<void> } {
  const validateFn = async (value: unknown, type: unknown, data: ResolverData) => {
    await validateInput(value, type, data);
    const { config } = (data.context as RequestContext).app;
    if (value === null || typeof value !== 'object') return;
    for (const rule of rules) {
      const forThisCall = !rule.argumentIs || data.args[rule.argumentIs.argument] === rule.argumentIs.equals;
      if (forThisCall && holdsIn(rule, config)) rule.check(value as T);
    }
  };
  registerArgumentRules(validateFn, rules);
  return { validateFn };
}

const classesWithRules = new WeakMap<object, boolean>();
const crossFieldRulesByClass = new WeakMap<object, readonly CrossFieldRule<unknown>[]>();

/**
 * Whether class-validator has rules for the value's class (its own or inherited). Asked once per
 * class: class-validator looks them up on every `validate` by testing the class against every
 * class it knows (1 % of a list request's CPU for `options`, which has none). A free-form JSON
 * value written inline in a query has no prototype (graphql-scalars builds it with
 * Object.create(null)), and class-validator fails on it: it has no rules to check anyway.
 */
function hasClassValidatorRules(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) === null) return false;
  const type: unknown = value.constructor;
  if (typeof type !== 'function') return true;
  let known = classesWithRules.get(type);
  if (known === undefined) classesWithRules.set(type, (known = validationRules().getTargetValidationMetadatas(type, '', true, false).length > 0));
  return known;
}

/** A class's rules across fields, gathered once per class (every rule is registered as its class loads, before any request). */
function crossFieldRulesOfClass(type: unknown): readonly CrossFieldRule<unknown>[] {
  if (typeof type !== 'function') return [];
  let rules = crossFieldRulesByClass.get(type);
  if (rules === undefined) crossFieldRulesByClass.set(type, (rules = crossFieldRulesOf(type)));
  return rules;
}

/**
 * The path of the first string holding U+0000 (`options.Filter`, `items[2].Name`; '' for the value
 * itself), or null. Every argument of every operation passes here and almost none holds a NUL:
 * the path's steps are gathered only on the way back from one found.
 */
function nulPath(value: unknown): string | null {
  const steps = nulSteps(value);
  return steps && steps.reduceRight<string>((path, step) => (typeof step === 'number' ? `${path}[${step}]` : path ? `${path}.${step}` : step), '');
}

/** The keys and indexes down to the first string holding U+0000, innermost first; null if none does. */
function nulSteps(value: unknown): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? [] : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const steps = nulSteps(value[index]);
      if (steps) return [...steps, index];
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const steps = nulSteps((value as Record<string, unknown>)[key]);
    if (steps) return [...steps, key];
  }
  return null;
}

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

export interface FieldAccess {
  /** No credential needed. */
  public: boolean;
  /** Roles required beyond signing in (empty: any signed-in login). */
  roles: Role[];
}

/** Who may call a root field, read from its resolver's `@Authorized` decorator. */
export function fieldAccess(operation: 'query' | 'mutation', fieldName: string): FieldAccess {
  const storage = getMetadataStorage();
  const resolvers = operation === 'query' ? storage.queries : storage.mutations;
  const resolver = resolvers.find((candidate) => candidate.schemaName === fieldName);
  const authorized = resolver && storage.authorizedFields.find((entry) => entry.target === resolver.target && entry.fieldName === resolver.methodName);
  return authorized ? { public: false, roles: authorized.roles.filter(isRole) } : { public: true, roles: [] };
}

function isRole(value: unknown): value is Role {
  return isOneOf(ROLES, value);
}
