import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/** GraphiQL at /graphiql (unless `graphiql` is false), Swagger UI at /api/docs, both from npm packages (no CDN), and the magic-link sign-in page at /signin. */
export async function mountDocs(app: FastifyInstance, openApi: object, options: { graphiql: boolean }): Promise<void> {
  // Kept as its JSON text: the document as objects held several MB of the heap for a rarely read route.
  const openApiJson = JSON.stringify(openApi);
  app.get('/api/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openApiJson));

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
      React.createElement(GraphiQL, { fetcher, defaultEditorToolsVisibility: true, defaultHeaders: '{"Authorization": "Bearer <token>"}' }));
  `));
}

function page(title: string, head: string[], body: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head.join('')}</head><body>${body.join('')}</body></html>`;
}
