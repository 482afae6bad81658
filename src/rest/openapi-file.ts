import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApiSchema, rawRoutes, routes } from '../areas/index.js';
import { compileRoutes } from './gateway/routes.js';
import { buildOpenApi } from './openapi.js';

/** Where the OpenAPI document is checked in, beside the typed client generated from it. */
export const OPENAPI_FILE = 'clients/typescript/openapi.json';

/** The OpenAPI document the service serves at /api/openapi.json, made without a database. */
export async function openApiDocument(): Promise<object> {
  const schema = await buildApiSchema();
  return buildOpenApi(schema, compileRoutes(schema, routes), rawRoutes.flatMap((area) => area.operations));
}

export async function openApiText(): Promise<string> {
  return `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
}

// `npm run client:generate` writes it (then generates the client's types from it).
if (process.argv[1]?.endsWith('openapi-file.js')) {
  mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
  writeFileSync(OPENAPI_FILE, await openApiText());
}
