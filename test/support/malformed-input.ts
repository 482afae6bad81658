import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType, type GraphQLInputField, type GraphQLInputType,
} from 'graphql';
import { plainCall, plainPathValue, plainValue, restCall, type RestCall } from '../../bench/fuzz-generators.js';
import { documentedKey } from '../../src/rest/documented-keys.js';
import { AllowedMethods } from '../../src/rest/allowed-methods.js';
import { matchRoute, type RouteIndex } from '../../src/rest/gateway/route-matching.js';
import type { CompiledRoute } from '../../src/rest/gateway/routes.js';

/**
 * Malformed REST requests generated from the route table, each with the answer the gateway owes
 * it before the operation runs: a 400 problem+json naming the field (or 415 for a body that is
 * not JSON). For every operation: path parameters and query arguments of a typed scalar given
 * text that is not one; query models given broken JSON, too-deep JSON and the wrong JSON kind;
 * bodies broken, too deep, of the wrong kind, missing, in another media type, and with each typed
 * top-level field of the model given a value of the wrong type. Everything else in the request is
 * the route's plain call (`plainCall`), so the one broken part is the only thing to refuse.
 */
export interface MalformedCase {
  what: string;
  call: RestCall;
  status: 400 | 415;
  /** The field the 400 must name (the documented name: `vendorid`, `options`, `body`, `Name`). */
  field: string | null;
}

/** Deeper than the gateway reads (64 levels). */
const TOO_DEEP = `${'['.repeat(100)}${']'.repeat(100)}`;

/** Text no Int, Float or Boolean accepts. */
const NOT_A_SCALAR = 'abc';

const SCALARS = new Set(['Int', 'Float', 'Boolean']);

/** Whether the gateway checks the type of this argument itself (path and query values). */
const isTypedScalar = (type: GraphQLInputType) => SCALARS.has(getNamedType(type).name);

/** A JSON value of the wrong kind for `type` (an array for a model, an object for a list or a scalar), or undefined when any JSON fits. */
function wrongKind(type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return { not: 'a list' };
  if (isInputObjectType(nullable)) return [1];
  return wrongLeaf(type);
}

/** A value `type` (a leaf) refuses, or undefined for a free-form scalar (JSON) that takes anything. */
function wrongLeaf(type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (!isLeafType(named)) return undefined;
  if (isEnumType(named)) return 'NOT_ONE_OF_THE_CHOICES';
  if (SCALARS.has(named.name)) return NOT_A_SCALAR;
  if (named.name === 'String' || named.name === 'ID') return { not: 'a string' };
  return undefined;
}

/** The top-level fields of a body model that the gateway type-checks, with a wrong value for each. */
function typedFields(type: GraphQLInputType): { field: GraphQLInputField; wrong: unknown }[] {
  const model = getNullableType(type);
  if (!isInputObjectType(model)) return [];
  return Object.values(model.getFields())
    .filter((field) => isLeafType(getNullableType(field.type)))
    .map((field) => ({ field, wrong: wrongLeaf(field.type) }))
    .filter(({ wrong }) => wrong !== undefined);
}

/** The plain call's query string, with `name` set to `value`. */
function withQuery(call: RestCall, name: string, value: string): string {
  const [path, search = ''] = call.path.split('?');
  const query = new URLSearchParams(search);
  query.set(name, value);
  return `${path}?${query.toString()}`;
}

/** Every malformed request of `route`. */
export function malformedCases(route: CompiledRoute, id: number): MalformedCase[] {
  const plain = plainCall(route, id);
  const cases: MalformedCase[] = [];
  const add = (what: string, call: RestCall, field: string | null, status: 400 | 415 = 400) => cases.push({ what, call, field, status });

  for (const segment of route.segments) {
    if (!('arg' in segment)) continue;
    const arg = route.field.args.find((candidate) => candidate.name === segment.arg)!;
    if (!isTypedScalar(arg.type)) continue;
    const values = getNamedType(arg.type).name === 'Int' ? [NOT_A_SCALAR, '1.5', '99999999999'] : [NOT_A_SCALAR];
    const [, search] = plain.path.split('?');
    for (const value of values) {
      const path = restCall(route, (argName) => (argName === segment.arg ? value : plainPathValue(route, argName, id)), [], undefined).path;
      add(`{${segment.param}} = ${value}`, { ...plain, path: search === undefined ? path : `${path}?${search}` }, segment.param);
    }
  }

  for (const { documented, arg } of route.queryArgs.values()) {
    const type = getNullableType(arg.type);
    if (isTypedScalar(arg.type)) add(`?${documented}=${NOT_A_SCALAR}`, { ...plain, path: withQuery(plain, documented, NOT_A_SCALAR) }, documented);
    if (!isInputObjectType(type)) continue; // a model as URL-encoded JSON (`options`)
    add(`?${documented}= broken JSON`, { ...plain, path: withQuery(plain, documented, '{"broken":') }, documented);
    add(`?${documented}= JSON nested 100 deep`, { ...plain, path: withQuery(plain, documented, TOO_DEEP) }, documented);
    add(`?${documented}= the wrong JSON kind`, { ...plain, path: withQuery(plain, documented, JSON.stringify(wrongKind(arg.type))) }, documented);
  }

  if (route.queryModelArg) {
    const model = getNullableType(route.queryModelArg.type);
    for (const field of isInputObjectType(model) ? Object.values(model.getFields()) : []) {
      const name = documentedKey(field.name);
      if (isTypedScalar(field.type) && !isListType(getNullableType(field.type))) add(`?${name}=${NOT_A_SCALAR}`, { ...plain, path: withQuery(plain, name, NOT_A_SCALAR) }, name);
      if (isInputObjectType(getNamedType(field.type))) add(`?${name}= broken JSON`, { ...plain, path: withQuery(plain, name, '{"broken":') }, name);
    }
  }

  if (route.bodyArg) {
    const json = { 'content-type': 'application/json' };
    add('a body of broken JSON', { ...plain, body: '{"broken":', headers: json }, 'body');
    add('a body nested 100 deep', { ...plain, body: TOO_DEEP, headers: json }, 'body');
    const wrong = wrongKind(route.bodyArg.type);
    if (wrong !== undefined) add(`a body of the wrong JSON kind (${JSON.stringify(wrong)})`, { ...plain, body: wrong }, 'body');
    if (isNonNullType(route.bodyArg.type)) add('no body', { ...plain, body: undefined }, 'body');
    add('a text/plain body', { ...plain, body: 'Name=x', headers: { 'content-type': 'text/plain' } }, null, 415);
    const model = plainValue(route.bodyArg.type, id, true);
    for (const { field, wrong: value } of typedFields(route.bodyArg.type)) {
      const name = documentedKey(field.name);
      add(`a body with ${name} = ${JSON.stringify(value)}`, { ...plain, body: { ...(model as object), [name]: value } }, name);
    }
  }
  return cases;
}

/** A refusal's Allow list does not matter here: any refusal means the call missed its route. */
const NO_OTHER_METHODS = new AllowedMethods([]);

/** Whether the gateway sends `call` to `route` (and not to a literal route of the same shape, nor to a 404). */
export function reaches(index: RouteIndex, call: RestCall, route: CompiledRoute): boolean {
  try {
    return matchRoute(index, NO_OTHER_METHODS, call.method, call.path.split('?')[0]).route === route;
  } catch {
    return false;
  }
}
