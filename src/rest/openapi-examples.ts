/*
 * Examples for the OpenAPI document, made from its own schemas, so that Swagger UI's "Try it
 * out" is pre-filled with a request the server accepts: required fields only (plus fields whose
 * schema carries an example, like the list options' Take), each the first candidate value its
 * rules accept.
 */

type JsonSchema = Record<string, unknown>;

/** Values tried, in order, for a string with a pattern or a format. */
const STRING_CANDIDATES = [
  'Example', 'example', '1', '0', 'true', '2024-01-15', '2024-01-15T10:00:00Z', 'https://example.com', 'member@example.com', 'example-tenant', 'staff', 'person', 'USD', '#336699',
];

const FORMAT_EXAMPLES: Record<string, string> = { email: 'member@example.com', uri: 'https://example.com', date: '2024-01-15', 'date-time': '2024-01-15T10:00:00Z' };

/** A value `schema` accepts, or undefined when none is found (the caller leaves the field out). */
export function exampleOf(schema: JsonSchema | undefined, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (typeof schema.$ref === 'string') return exampleOf(components[schema.$ref.split('/').pop()!], components, depth + 1);
  // A body with rules of its operation (`allOf`: the model, then the rules): the model's example.
  if (Array.isArray(schema.allOf) && !schema.type && !schema.properties) return exampleOf(schema.allOf[0] as JsonSchema, components, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null);
  if (Array.isArray(schema.anyOf)) {
    for (const branch of schema.anyOf as JsonSchema[]) {
      if (branch.type === 'null') continue;
      const value = exampleOf({ ...branch, type: branch.type ?? schema.type }, components, depth + 1);
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || schema.properties) return objectExample(schema, components, depth);
  if (types.includes('array')) {
    const item = exampleOf(schema.items as JsonSchema | undefined, components, depth + 1);
    const count = Math.max(1, Number(schema.minItems ?? 0));
    return item === undefined ? [] : Array.from({ length: count }, () => item);
  }
  if (types.includes('integer') || types.includes('number')) {
    const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    const value = minimum !== undefined ? Math.max(minimum, Math.min(1, maximum ?? 1)) : Math.min(1, maximum ?? 1);
    return value;
  }
  if (types.includes('boolean')) return false;
  if (types.includes('string')) return stringExample(schema);
  return undefined;
}

function objectExample(schema: JsonSchema, components: Record<string, JsonSchema>, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const result: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const wanted = required.has(name) || 'example' in property || (Array.isArray(property.examples) && property.examples.length > 0);
    if (!wanted) continue;
    const value = exampleOf(property, components, depth + 1);
    if (value !== undefined) result[name] = value;
  }
  return result;
}

function stringExample(schema: JsonSchema): string | undefined {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Number(schema.maxLength ?? Infinity);
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
  const format = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined;
  const candidates = format ? [format, ...STRING_CANDIDATES] : STRING_CANDIDATES;
  return candidates.find((value) => value.length >= minLength && value.length <= maxLength && (!pattern || pattern.test(value)))
    ?? (pattern ? undefined : 'x'.repeat(Math.max(minLength, 1)));
}
