import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildApiSchema } from '../areas/index.js';

/** Where the GraphQL schema is checked in: clients generate code from it, and a test keeps it current. */
export const SDL_FILE = 'schema.graphql';

/** The schema both interfaces serve, as SDL in a stable order. */
export async function schemaSdl(): Promise<string> {
  return printSorted(await buildApiSchema());
}

/** The served schema's SDL, printed on first request (most processes are never asked). */
export function sdlOf(schema: GraphQLSchema): () => string {
  let printed: string | undefined;
  return () => (printed ??= printSorted(schema));
}

function printSorted(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

// `npm run schema:sdl` writes it.
if (process.argv[1]?.endsWith('schema-sdl.js')) writeFileSync(SDL_FILE, await schemaSdl());
