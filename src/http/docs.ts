import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/** A first GraphiQL query that works on any tenant: who am I, and one page of a list. */
export const EXAMPLE_QUERY = `# Send your token in the Headers tab: {"Authorization": "Bearer <token>"}
# (npm start prints one for the demo tenant; npm run cli -- token --tenant KEY --email EMAIL makes one).
# An anonymous operation: GraphiQL would keep a name and send it with whatever replaces this text.
{
  aboutMe { TenantName FirstName LastName AllRoles }
  vendors(options: { Take: 5 }) { VendorId Name WebsiteUrl }
}
`;

/**
 * The landing page at / (also /api and /docs lead there or to Swagger UI), GraphiQL at /graphiql
 * (unless `graphiql` is false), Swagger UI at /api/docs, both from npm packages (no CDN), and the
 * magic-link sign-in page at /signin.
 */
export async function mountDocs(app: FastifyInstance, openApi: () => object, options: { graphiql: boolean; isProduction: boolean; sdl: (() => string) | null }): Promise<void> {
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(landingPage(options.graphiql, options.sdl !== null)));
  app.get('/api', async (_request, reply) => reply.redirect('/'));
  app.get('/docs', async (_request, reply) => reply.redirect('/api/docs'));
  // The schema as SDL where introspection is on (it tells no more than introspection would).
  const sdl = options.sdl;
  if (sdl) app.get('/graphql/schema.graphql', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(sdl()));

  // Built on its first request and kept as UTF-8 bytes: the document is read rarely, and as a
  // string (two bytes a character, for its few non-Latin-1 characters) it held 2.2 MB of every
  // process's heap from start, as objects several MB more.
  let openApiJson: Buffer | undefined;
  app.get('/api/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openApiJson ??= Buffer.from(JSON.stringify(openApi()))));

  await app.register(fastifyStatic, { root: packageDir('swagger-ui-dist'), prefix: '/api/docs/assets/', decorateReply: false, index: false });
  app.get('/api/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page('API documentation', [
    '<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">',
  ], [
    '<div id="swagger-ui"></div>',
    '<script src="/api/docs/assets/swagger-ui-bundle.js"></script>',
    '<script src="/docs/swagger-init.js"></script>',
  ])));

  app.get('/docs/swagger-init.js', async (_request, reply) => reply.type('text/javascript').send(
    // Tags in the document's order (the API documents' areas), the filter box and deep links on, every operation's example pre-filled.
    "window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', persistAuthorization: true, deepLinking: true, filter: true });",
  ));

  // The page a magic link opens: it redeems the link's token and shows the session token.
  app.get('/signin', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page('Sign in', [], [
    '<main><h1>Sign in</h1><p id="status">Signing in…</p><pre id="token"></pre></main>',
    '<script src="/docs/signin.js"></script>',
  ])));
  app.get('/docs/signin.js', async (_request, reply) => reply.type('text/javascript').send(`
    const status = document.getElementById('status');
    const token = new URLSearchParams(location.search).get('token');
    if (!token) status.textContent = 'This link has no sign-in token.';
    else fetch('/api/login/magiclink/redeem', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Token: token }) })
      .then(async (response) => {
        const body = await response.json();
        if (!response.ok) { status.textContent = body.detail || 'This link cannot be used.'; return; }
        status.textContent = 'Signed in. Your session token (send it as Authorization: Bearer …):';
        document.getElementById('token').textContent = body.Token;
      }, () => { status.textContent = 'The service could not be reached.'; });
  `));

  if (!options.graphiql) return;
  await app.register(fastifyStatic, { root: packageDir('graphiql'), prefix: '/graphiql/assets/graphiql/', decorateReply: false, index: false, allowedPath: (file) => file.startsWith('/graphiql.min.') });
  await app.register(fastifyStatic, { root: path.join(packageDir('react'), 'umd'), prefix: '/graphiql/assets/react/', decorateReply: false, index: false });
  await app.register(fastifyStatic, { root: path.join(packageDir('react-dom'), 'umd'), prefix: '/graphiql/assets/react-dom/', decorateReply: false, index: false });
  app.get('/graphiql', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page('GraphiQL', [
    '<link rel="stylesheet" href="/graphiql/assets/graphiql/graphiql.min.css">',
    '<style>html, body, #graphiql { height: 100%; margin: 0; }</style>',
  ], [
    '<div id="graphiql"></div>',
    '<script src="/graphiql/assets/react/react.production.min.js"></script>',
    '<script src="/graphiql/assets/react-dom/react-dom.production.min.js"></script>',
    '<script src="/graphiql/assets/graphiql/graphiql.min.js"></script>',
    '<script src="/docs/graphiql-init.js"></script>',
  ])));

  // Start-up scripts are files, not inline, so the Content-Security-Policy can forbid inline scripts.
  app.get('/docs/graphiql-init.js', async (_request, reply) => reply.type('text/javascript').send(`
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher, defaultEditorToolsVisibility: true, defaultQuery: ${JSON.stringify(EXAMPLE_QUERY)},
        defaultHeaders: '{"Authorization": "Bearer <token>"}', shouldPersistHeaders: ${!options.isProduction},
      }));
  `));
}

/** What a newcomer opening the service in a browser needs: where the two interfaces are and how to get a token. */
function landingPage(graphiql: boolean, sdl: boolean): string {
  const links = [
    graphiql ? '<li><a href="/graphiql">GraphiQL</a> — explore and run GraphQL operations (POST /graphql)</li>' : '',
    '<li><a href="/api/docs">Swagger UI</a> — the REST API under /api, with "Try it out"</li>',
    '<li><a href="/api/openapi.json">OpenAPI document</a> — generate a REST client from it</li>',
    sdl ? '<li><a href="/graphql/schema.graphql">GraphQL schema (SDL)</a> — generate a GraphQL client from it</li>' : '',
  ];
  return page('Membership API', ['<style>body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1rem; }</style>'], [
    '<main><h1>Membership API</h1>',
    '<p>One implementation, two interfaces: GraphQL at <code>/graphql</code> and the documented REST paths under <code>/api</code>.</p>',
    `<ul>${links.join('')}</ul>`,
    '<h2>Getting a token</h2>',
    '<p>Every request but the public ones carries <code>Authorization: Bearer &lt;token&gt;</code>. ',
    'In development, <code>npm start</code> prints a staff token for the demo tenant; ',
    '<code>npm run cli -- token --tenant KEY --email EMAIL</code> prints one for a login; ',
    'members sign in with a magic link (<code>POST /api/login/magiclink</code>); partners use API keys ',
    '(<code>npm run cli -- apikey create</code>).</p></main>',
  ]);
}

function page(title: string, head: string[], body: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head.join('')}</head><body>${body.join('')}</body></html>`;
}
