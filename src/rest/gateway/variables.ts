import { getNamedType, getNullableType, isInputObjectType, isListType, isNonNullType, type GraphQLArgument } from 'graphql';
import { BadInput } from '../../core/errors.js';
import { documentedKey } from '../documented-keys.js';
import { coerceScalar, toInput } from './coercion.js';
import { parseBody, parseJson } from './request-body.js';
import type { PathParams } from './route-matching.js';
import type { CompiledRoute } from './routes.js';

/** The GraphQL variables of a matched request, each checked against its argument's type. */
export function buildVariables(route: CompiledRoute, params: PathParams, rawQuery: string, request: { body: unknown; contentType: string | undefined }) {
  const variables: Record<string, unknown> = { ...route.row.args };
  for (const [argName, { value, documented }] of params) variables[argName] = coerceScalar(value, argOf(route, argName), documented);

  const query = new URLSearchParams(rawQuery);
  for (const key of new Set(query.keys())) {
    const target = route.queryArgs.get(key.toLowerCase());
    if (!target || target.arg.name in variables) continue; // a path parameter wins over the query string
    const values = query.getAll(key);
    const type = getNullableType(target.arg.type);
    if (isInputObjectType(type)) {
      // A model in the query string (`options`): URL-encoded JSON, checked like a body.
      variables[target.arg.name] = toInput(parseJson(values[0], target.documented), type, target.documented);
    } else {
      variables[target.arg.name] = isListType(type)
        ? values.map((value) => coerceScalar(value, target.arg, target.documented))
        : coerceScalar(values[0], target.arg, target.documented);
    }
  }

  if (route.queryModelArg) {
    const model = queryModelFields(route.queryModelArg, query);
    if (model) variables[route.queryModelArg.name] = toInput(model, route.queryModelArg.type, '', true);
  }

  if (route.bodyArg) {
    const text = typeof request.body === 'string' ? request.body.trim() : '';
    if (text) {
      const { value, form } = parseBody(text, request.contentType);
      variables[route.bodyArg.name] = toInput(value, route.bodyArg.type, '', form);
    } else if (isNonNullType(route.bodyArg.type)) {
      throw BadInput.field('body', 'is required');
    }
  }
  return variables;
}

/**
 * The fields of a query-string model (`?Take=10&Criteria={…}`): keys meet the model's documented
 * field names case-insensitively, a field that is itself a model is URL-encoded JSON. Null when
 * the query string names none of them.
 */
function queryModelFields(arg: GraphQLArgument, query: URLSearchParams): Record<string, unknown> | null {
  const model = getNullableType(arg.type);
  if (!isInputObjectType(model)) return null;
  const fields = new Map(Object.values(model.getFields()).map((inputField) => [documentedKey(inputField.name).toLowerCase(), inputField]));
  const given: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const inputField = fields.get(key.toLowerCase());
    if (!inputField) continue;
    const name = documentedKey(inputField.name);
    const value = query.get(key) ?? '';
    given[name] = isInputObjectType(getNamedType(inputField.type)) ? parseJson(value, name) : value;
  }
  return Object.keys(given).length ? given : null;
}

function argOf(route: CompiledRoute, name: string): GraphQLArgument {
  return route.field.args.find((arg) => arg.name === name)!;
}
