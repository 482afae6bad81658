import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/rest/openapi-file.js';

/*
 * Every REST response a test receives is checked against the OpenAPI document the service
 * serves (the same document, built in-process once): the status must be documented for the
 * operation, the media type must be one the document lists for that status, and a JSON body must
 * match its schema. A mismatch fails the test that made the request, naming the operation.
 */

type JsonSchema = Record<string, unknown>;
interface Operation { method: string; path: string; pattern: RegExp; literalLength: number; responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> }

const DOCUMENT_ID = 'openapi.json';
// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

let checker: Promise<(method: string, url: string, status: number, contentType: string | null, text: string) => string | null> | undefined;

/** Null when the response is what the document says, else what differs. */
export async function responseMismatch(method: string, url: string, status: number, contentType: string | null, text: string): Promise<string | null> {
  checker ??= buildChecker();
  return (await checker)(method, url, status, contentType, text);
}

async function buildChecker() {
  const document = await openApiDocument() as { paths: Record<string, Record<string, { responses: Operation['responses'] }>> };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(), path, responses: operation.responses,
    pattern: new RegExp(`^${path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}/?$`, 'i'),
    literalLength: path.replace(/\{[^}]+\}/g, '').length,
  }))).sort((a, b) => b.literalLength - a.literalLength);
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` })));
    return validate;
  };

  return (method: string, url: string, status: number, contentType: string | null, text: string): string | null => {
    const path = url.split('?')[0];
    const upper = method.toUpperCase();
    if (upper === 'HEAD' || upper === 'OPTIONS') return null;
    const candidates = operations.filter((operation) => operation.pattern.test(path));
    const operation = candidates.find((candidate) => candidate.method === upper);
    // Not a documented operation (GraphQL, health, docs), or a method the path does not have (405 by the router).
    if (!operation) return null;
    const name = `${operation.method} ${operation.path}`;
    const response = operation.responses[String(status)];
    if (!response) return `${name} answered ${status}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')}): ${text.slice(0, 300)}`;
    if (status === 304) return null;
    const mediaType = contentType?.split(';')[0].trim().toLowerCase() ?? null;
    const content = response.content ?? {};
    if (Object.keys(content).length === 0) {
      return text === '' ? null : `${name} ${status}: the document says no body, the server sent ${mediaType ?? 'no content type'} (${text.slice(0, 200)})`;
    }
    if (!mediaType || !(mediaType in content)) return `${name} ${status}: the server sent ${mediaType ?? 'no content type'}, the document lists ${Object.keys(content).join(', ')}`;
    if (!mediaType.endsWith('json')) return null;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${name} ${status}: the body is not JSON: ${text.slice(0, 200)}`;
    }
    const pointer = ['paths', operation.path, operation.method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema'].map((segment) => `/${encodeURIComponent(escapePointer(segment))}`).join('');
    const validate = validatorFor(pointer);
    if (validate(body)) return null;
    const error = validate.errors?.[0];
    return `${name} ${status}: the body does not match the document at ${error?.instancePath || '(root)'}: ${error?.message ?? 'invalid'} (schema ${error?.schemaPath ?? ''}); body: ${text.slice(0, 300)}`;
  };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
