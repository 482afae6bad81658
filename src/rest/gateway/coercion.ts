import {
  getNamedType, getNullableType, GraphQLError, isEnumType, isLeafType, isListType, isNonNullType, type GraphQLArgument, type GraphQLInputObjectType, type GraphQLInputType, type GraphQLLeafType,
} from 'graphql';
import { BadInput } from '../../core/errors.js';
import { documentedKey } from '../documented-keys.js';

const INT32 = { min: -2147483648, max: 2147483647 };

/** A path or query string value as the argument's scalar; a wrong one is a 400 naming the parameter. */
export function coerceScalar(value: string, arg: GraphQLArgument, name: string): unknown {
  switch (getNamedType(arg.type).name) {
    case 'Int': {
      const number = /^-?\d{1,10}$/.test(value) ? Number(value) : NaN;
      if (!(number >= INT32.min && number <= INT32.max)) throw BadInput.field(name, 'must be an integer');
      return number;
    }
    case 'Float': {
      const number = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(number)) throw BadInput.field(name, 'must be a number');
      return number;
    }
    case 'Boolean': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw BadInput.field(name, 'must be true or false');
      return lower === 'true';
    }
    default:
      return value;
  }
}

/**
 * A JSON value shaped for a GraphQL input type, checked here so that a REST caller's error names
 * the documented field (`Name`, `options.Take`) in our own words rather than GraphQL's: documented
 * keys become field names (exact match first, then case-insensitive, as ASP.NET model binding
 * did), unknown fields, server-owned ones included, are dropped, required fields must be there,
 * and every scalar must parse. Numbers and booleans sent as strings that parse exactly
 * (`"VendorId": "0"`, `"IsActive": "true"`) are converted, as Json.NET did.
 */
export function toInput(value: unknown, type: GraphQLInputType, path: string, form = false): unknown {
  const nullable = getNullableType(type);
  const field = path || 'body';
  if (value === null || value === undefined) {
    if (isNonNullType(type)) throw BadInput.field(field, 'is required');
    return value;
  }
  if (isListType(nullable)) {
    // A form field given once is a list of one, as form binding had it.
    const items = form && !Array.isArray(value) ? [value] : value;
    if (!Array.isArray(items)) throw BadInput.field(field, 'must be a JSON array');
    return items.map((item, index) => toInput(item, nullable.ofType, `${path}[${index}]`, form));
  }
  // Json.NET and form binding read "" as no value for a number, a boolean or a choice.
  if (value === '' && isLeafType(nullable) && nullable.name !== 'String' && nullable.name !== 'ID') return toInput(null, type, path, form);
  if (isLeafType(nullable)) return toLeaf(value, nullable, field);
  if (typeof value !== 'object' || Array.isArray(value)) throw BadInput.field(field, 'must be a JSON object');
  const given = value as Record<string, unknown>;
  let lowerKeys: Map<string, string> | undefined;
  const result: Record<string, unknown> = {};
  for (const { name, documented, lowerDocumented, type: fieldType, required } of inputFieldsOf(nullable)) {
    const key = documented in given ? documented : (lowerKeys ??= new Map(Object.keys(given).map((known) => [known.toLowerCase(), known]))).get(lowerDocumented);
    if (key !== undefined && given[key] !== undefined) result[name] = toInput(given[key], fieldType, path ? `${path}.${documented}` : documented, form);
    else if (required) throw BadInput.field(path ? `${path}.${documented}` : documented, 'is required');
  }
  return result;
}

interface InputField { name: string; documented: string; lowerDocumented: string; type: GraphQLInputType; required: boolean }

/** An input type's fields with their documented keys, worked out once per type (the schema's types live as long as the process). */
const inputFields = new WeakMap<GraphQLInputObjectType, InputField[]>();

function inputFieldsOf(type: GraphQLInputObjectType): InputField[] {
  let fields = inputFields.get(type);
  if (!fields) {
    fields = Object.values(type.getFields()).map((inputField) => {
      const documented = documentedKey(inputField.name);
      return { name: inputField.name, documented, lowerDocumented: documented.toLowerCase(), type: inputField.type, required: isNonNullType(inputField.type) && inputField.defaultValue === undefined };
    });
    inputFields.set(type, fields);
  }
  return fields;
}

/** A scalar or enum value, converted from a string where Json.NET would have; a wrong one is a 400 naming the field. */
function toLeaf(value: unknown, type: GraphQLLeafType, field: string): unknown {
  let candidate = value;
  if (typeof value === 'string' && (type.name === 'Int' || type.name === 'Float') && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) candidate = Number(value);
  if (typeof value === 'string' && type.name === 'Boolean' && /^(true|false)$/i.test(value.trim())) candidate = value.trim().toLowerCase() === 'true';
  try {
    if (type.parseValue(candidate) === undefined) throw new TypeError('no value');
    return candidate;
  } catch (error) {
    throw BadInput.field(field, expectation(type, error));
  }
}

function expectation(type: GraphQLLeafType, error: unknown): string {
  if (isEnumType(type)) return `must be one of ${type.getValues().map((value) => value.name).join(', ')}`;
  switch (type.name) {
    case 'Int': return 'must be an integer from -2147483648 to 2147483647';
    case 'Float': return 'must be a number';
    case 'Boolean': return 'must be true or false';
    case 'String': case 'ID': return 'must be a string';
    default: return error instanceof GraphQLError ? error.message : `must be a valid ${type.name}`;
  }
}
