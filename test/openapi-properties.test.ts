import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { rest, createTestTenant, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/*
 * Requests generated from the served OpenAPI document for every JSON operation, within a fixed
 * budget: a request valid by the document must not be refused with 400, and a request whose one
 * field breaks its documented type must be a 400 naming that field. Every answer is also checked
 * against the document by the HTTP helper (support/openapi-check.ts). Uploads and signed
 * callbacks take bytes, not JSON: their own tests cover them.
 */

type JsonSchema = Record<string, any>;
interface Parameter { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: JsonSchema; content?: Record<string, { schema: JsonSchema }> }
interface Operation { method: string; path: string; parameters: Parameter[]; requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }; security: unknown[] }

/**
 * Generated requests per operation (valid ones; each operation also gets one broken request per
 * checkable field, at most 3). CI keeps this small; a longer local run:
 * OPENAPI_PROPERTY_RUNS=200 OPENAPI_PROPERTY_SEED=7 npm test -- test/openapi-properties.test.ts
 */
const RUNS_PER_OPERATION = Number(process.env.OPENAPI_PROPERTY_RUNS ?? 3);
const SEED = Number(process.env.OPENAPI_PROPERTY_SEED ?? 35);
/** Time for one test: about 250 operations at a few milliseconds a request, never less than ten minutes. */
const BUDGET_MS = Math.max(600_000, RUNS_PER_OPERATION * 250 * 40);

/** A 400 for an id in a body that names no record: existence is not a rule a document can state. */
const NAMES_NO_RECORD = /^names no |not found|does not exist/i;

// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

let server: TestServer;
let tenant: TestTenant;
let components: Record<string, JsonSchema>;
let operations: Operation[];
/** Whether a JSON body or JSON query parameter is valid by the whole document as JSON Schema (rules across fields, `allOf`, `if`/`then` included), by "operation name". */
const jsonValidators = new Map<string, ValidateFunction>();
/** The same, honouring the document's comparison keywords too (`x-not-less-than`, `x-not-before`, `x-not-after`). */
const comparingValidators = new Map<string, ValidateFunction>();
/** A body's rules of one path value (`x-when-parameter: { parameter, equals, then }`), by "operation name". */
const pathValueRules = new Map<string, { parameter: string; equals: unknown; valid: ValidateFunction }[]>();

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTestTenant(server, 'openapi-properties');
  const document = (await rest(server, 'GET', '/api/openapi.json')).body;
  components = document.components.schemas;
  operations = Object.entries(document.paths as Record<string, Record<string, Operation>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })));
  const plain = documentAjv(document);
  const comparing = withComparisonKeywords(documentAjv(document));
  const pointer = (...parts: string[]) => parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  for (const operation of operations) {
    const add = (name: string, ...parts: string[]) => {
      const reference = { $ref: `openapi.json#/${pointer('paths', operation.path, operation.method.toLowerCase(), ...parts, 'content', 'application/json', 'schema')}` };
      jsonValidators.set(`${operation.method} ${operation.path} ${name}`, plain.compile(reference));
      comparingValidators.set(`${operation.method} ${operation.path} ${name}`, comparing.compile(reference));
    };
    if (operation.requestBody?.content['application/json']) add('body', 'requestBody');
    const bodyRules = ((operation.requestBody?.content['application/json']?.schema.allOf ?? []) as JsonSchema[]).flatMap((rule) => (rule['x-when-parameter'] ? [rule['x-when-parameter']] : []));
    pathValueRules.set(`${operation.method} ${operation.path}`, bodyRules.map(({ parameter, equals, then }) => ({ parameter, equals, valid: comparing.compile(then) })));
    (operation.parameters ?? []).forEach((parameter, index) => {
      if (parameter.content?.['application/json']) add(parameter.name, 'parameters', String(index));
    });
  }
});
afterAll(() => server.close());

function documentAjv(document: JsonSchema): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('int32', true);
  ajv.addSchema(document, 'openapi.json');
  return ajv;
}

/**
 * The document's comparison keywords, read as the document's introduction defines them: on a
 * field, `x-not-less-than: F` (a number, or the whole number a string holds, not less than the
 * sibling F's), `x-not-before: F` (a day — yyyy-mm-dd or a date-time's day — not before F's),
 * `x-not-after: today` (a day not after today, UTC). A value not given or not of the kind is not compared.
 */
function withComparisonKeywords(ajv: Ajv2020): Ajv2020 {
  const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : null);
  const day = (value: unknown) => (typeof value === 'string' ? /^\s*(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec(value)?.[1] ?? null : null);
  const notLess = <V extends number | string>(read: (value: unknown) => V | null, value: unknown, bound: unknown) => {
    const first = read(value);
    const second = read(bound);
    return first === null || second === null || first >= second;
  };
  const sibling = (name: string, context?: { parentData?: unknown }) => (context?.parentData as Record<string, unknown> | undefined)?.[name];
  ajv.addKeyword({ keyword: 'x-not-less-than', schemaType: 'string', errors: false, validate: (other: string, value: unknown, _schema?: unknown, context?: { parentData?: unknown }) => notLess(number, value, sibling(other, context)) });
  ajv.addKeyword({ keyword: 'x-not-before', schemaType: 'string', errors: false, validate: (other: string, value: unknown, _schema?: unknown, context?: { parentData?: unknown }) => notLess(day, value, sibling(other, context)) });
  ajv.addKeyword({ keyword: 'x-not-after', schemaType: 'string', errors: false, validate: (named: string, value: unknown) => named === 'today' && notLess(day, new Date().toISOString().slice(0, 10), value) });
  return ajv;
}

/** A fast-check arbitrary of the values `schema` documents as valid. */
function arbitraryOf(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 12) return fc.constant(undefined);
  if (schema.$ref) return arbitraryOf(components[String(schema.$ref).split('/').pop()!], depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  // Rules stated beside a model (`allOf`: the model, then rules across its fields): made from the model, filtered by the whole document.
  if (Array.isArray(schema.allOf) && !schema.type && !schema.properties) return arbitraryOf(schema.allOf[0], depth + 1);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((branch: JsonSchema) => arbitraryOf({ ...branch, type: branch.type ?? schema.type }, depth + 1)));
  const types: string[] = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(Boolean);
  const nonNull = types.filter((type) => type !== 'null');
  const inner = nonNull.length ? arbitraryOfType(nonNull[0], schema, depth) : fc.constant(undefined);
  return types.includes('null') ? fc.option(inner, { nil: null }) : inner;
}

function arbitraryOfType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer': return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000000, Number.MAX_SAFE_INTEGER) });
    case 'number': return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }).map((value) => Math.round(value * 100) / 100);
    case 'boolean': return fc.boolean();
    case 'array': return fc.array(arbitraryOf(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return fc.record(Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, depth + 1)])), { requiredKeys: schema.required ?? [] });
    }
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? 40, 200);
      const base = schema.format === 'email' ? fc.constantFrom('member@example.com', 'a.b@example.org')
        : schema.format === 'uri' ? fc.constantFrom('https://example.com', 'http://example.org/a?b=1')
          : schema.pattern ? matching(new RegExp(schema.pattern, 'u'))
            : fc.string({ minLength, maxLength });
      return base.filter((value) => value.length >= minLength && value.length <= (schema.maxLength ?? Infinity) && !value.includes('\u0000'));
    }
    default: return fc.constant(undefined);
  }
}

/** Strings matching `pattern`; for a pattern fast-check cannot generate from (a lookahead), the values the document's examples are made of. */
function matching(pattern: RegExp): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(pattern);
  } catch {
    const known = ['Example', '1', '2024-01-15', '2024-01-15T10:00:00Z', 'https://example.com', 'member@example.com', 'staff'].filter((value) => pattern.test(value));
    return known.length ? fc.constantFrom(...known) : fc.constant('Example');
  }
}

function isJsonOperation(operation: Operation): boolean {
  const body = operation.requestBody?.content;
  return !(body && !body['application/json']) && !operation.security.some((scheme) => typeof scheme === 'object' && scheme !== null && 'callbackSignature' in scheme);
}

interface GeneratedRequest { url: string; body?: unknown; headers: Record<string, string> }

/** A request of `operation` made of generated values (`values`: parameter name or "body" → value). */
function requestOf(operation: Operation, values: Record<string, unknown>): GeneratedRequest {
  let url = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { 'x-tenant-key': tenant.key };
  for (const parameter of operation.parameters ?? []) {
    const value = values[parameter.name];
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(text));
    else if (parameter.in === 'query') query.append(parameter.name, text);
    else if (parameter.name === 'Idempotency-Key') headers[parameter.name] = text;
  }
  if (query.size) url += `?${query}`;
  return { url, body: values.body, headers };
}

function valuesArbitrary(operation: Operation): fc.Arbitrary<Record<string, unknown>> {
  const entries: [string, fc.Arbitrary<unknown>][] = (operation.parameters ?? [])
    .filter((parameter) => parameter.in !== 'header' || parameter.name === 'Idempotency-Key')
    .filter((parameter) => parameter.name !== 'tenant')
    .map((parameter) => {
      const schema = parameter.schema ?? Object.values(parameter.content ?? {})[0]?.schema;
      const arbitrary = validBy(`${operation.method} ${operation.path} ${parameter.name}`, arbitraryOf(schema));
      return [parameter.name, parameter.required || parameter.in === 'path' ? arbitrary : fc.option(arbitrary, { nil: undefined })];
    });
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body) entries.push(['body', validBy(`${operation.method} ${operation.path} body`, arbitraryOf(body))]);
  return fc.record(Object.fromEntries(entries));
}

/** Only the values the whole document accepts (the generator follows each field's schema, not rules across fields). */
function validBy(name: string, arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const valid = jsonValidators.get(name);
  return valid ? arbitrary.filter((value) => valid(value)) : arbitrary;
}

/** Whether the generated JSON values also keep the document's vendor keywords (comparisons, and a body's rules of one path value). */
function comparesValid(operation: Operation, values: Record<string, unknown>): boolean {
  const rulesOfPathValues = pathValueRules.get(`${operation.method} ${operation.path}`) ?? [];
  return Object.entries(values).every(([name, value]) => {
    const valid = comparingValidators.get(`${operation.method} ${operation.path} ${name}`);
    return !valid || value === undefined || valid(value);
  }) && rulesOfPathValues.every(({ parameter, equals, valid }) => values[parameter] !== equals || valid(values.body));
}

async function send(operation: Operation, request: GeneratedRequest) {
  return rest(server, operation.method, request.url, { token: operation.security.length ? tenant.staffToken : undefined, body: request.body, headers: request.headers });
}

describe('requests generated from the OpenAPI document', () => {
  it('never refuses a request the document says is valid (400), on every JSON operation', async () => {
    // Generated as valid by JSON Schema; those that break a vendor keyword are counted apart (their 400 is documented).
    const refused: string[] = [];
    const stated = { sent: 0, refused: new Map<string, number>() };
    const tried = operations.filter(isJsonOperation);
    for (const operation of tried) {
      const samples = fc.sample(valuesArbitrary(operation), { numRuns: RUNS_PER_OPERATION, seed: SEED });
      for (const values of samples) {
        const request = requestOf(operation, values);
        const response = await send(operation, request);
        const breaksVendorKeyword = !comparesValid(operation, values);
        if (breaksVendorKeyword) stated.sent++;
        if (response.status !== 400 || NAMES_NO_RECORD.test(response.body.errors[0].message)) continue;
        const cause = `${operation.method} ${operation.path} → ${response.body.errors.map((error: { field: string; message: string }) => `${error.field}: ${error.message}`).join('; ')}`;
        if (breaksVendorKeyword) stated.refused.set(cause, (stated.refused.get(cause) ?? 0) + 1);
        else refused.push(`${cause}\n    ${request.url} ${JSON.stringify(request.body)?.slice(0, 300)}`);
      }
    }
    const statedRefused = [...stated.refused.values()].reduce((sum, count) => sum + count, 0);
    // The report of a longer local run: what is refused, by cause.
    console.info([
      `${tried.length} operations, ${RUNS_PER_OPERATION} requests each (seed ${SEED}), valid by JSON Schema: ${refused.length + statedRefused} refused with 400.`,
      `${stated.sent} of them break a vendor keyword (x-not-less-than, x-not-before, x-not-after, x-when-parameter), ${statedRefused} refused:`,
      ...[...stated.refused].map(([cause, count]) => `  ${count} × ${cause}`),
      `Valid with the vendor keywords too, refused: ${refused.length}.`,
    ].join('\n'));
    expect(tried.length).toBeGreaterThan(200);
    expect(refused).toEqual([]);
  }, BUDGET_MS);

  it('answers 400 naming the field when one documented field has the wrong type', async () => {
    const unnamed: string[] = [];
    let checked = 0;
    for (const operation of operations.filter(isJsonOperation)) {
      const [valid] = fc.sample(valuesArbitrary(operation), { numRuns: 1, seed: SEED });
      for (const broken of brokenFields(operation).slice(0, 3)) {
        // No Idempotency-Key: each broken request is a new one.
        const values = { ...(broken.in === 'body' ? { ...valid, body: { ...(valid.body as object), [broken.name]: broken.value } } : { ...valid, [broken.name]: broken.value }), 'Idempotency-Key': undefined };
        const response = await send(operation, requestOf(operation, values));
        checked++;
        const fields: string[] = (response.body?.errors ?? []).map((error: { field: string }) => error.field);
        if (response.status !== 400 || !fields.some((field) => field.toLowerCase().includes(broken.name.toLowerCase()))) {
          unnamed.push(`${operation.method} ${operation.path} ${broken.in} ${broken.name}=${JSON.stringify(broken.value)} → ${response.status} ${response.text.slice(0, 200)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(unnamed).toEqual([]);
  }, 600_000);
});

describe('credentials before inputs, on every secured operation of the document', () => {
  it('answers 401 to a request with no token whose input is malformed, never 400', async () => {
    const answered: string[] = [];
    const secured = operations.filter((operation) => operation.security.some((scheme) => typeof scheme === 'object' && scheme !== null && 'bearer' in scheme));
    for (const operation of secured) {
      const [valid] = fc.sample(valuesArbitrary(operation), { numRuns: 1, seed: SEED });
      // A broken field where the document has one; else a body that is no JSON object at all.
      const [broken] = brokenFields(operation);
      const values = broken
        ? (broken.in === 'body' ? { ...valid, body: { ...(valid.body as object), [broken.name]: broken.value } } : { ...valid, [broken.name]: broken.value })
        : { ...valid, body: operation.method === 'GET' ? undefined : 'not an object' };
      const request = requestOf(operation, values);
      const response = await rest(server, operation.method, request.url, { body: request.body, headers: request.headers });
      if (response.status !== 401) answered.push(`${operation.method} ${request.url} → ${response.status} ${response.text.slice(0, 120)}`);
    }
    expect(secured.length).toBeGreaterThan(200);
    expect(answered).toEqual([]);
  }, 600_000);
});

/** Fields whose documented type a value can break: an int32 path id given as text, a body field given the wrong JSON type. */
function brokenFields(operation: Operation): { in: 'path' | 'body'; name: string; value: unknown }[] {
  const broken: { in: 'path' | 'body'; name: string; value: unknown }[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path' && parameter.schema?.type === 'integer') broken.push({ in: 'path', name: parameter.name, value: 'not-a-number' });
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  const model = body?.$ref ? components[String(body.$ref).split('/').pop()!] : body;
  for (const [name, property] of Object.entries((model?.properties ?? {}) as Record<string, JsonSchema>)) {
    const types = [property.type].flat();
    if (types.includes('integer') || types.includes('boolean')) broken.push({ in: 'body', name, value: { wrong: 'type' } });
    else if (types.includes('string') && !property.anyOf) broken.push({ in: 'body', name, value: { wrong: 'type' } });
  }
  return broken;
}
