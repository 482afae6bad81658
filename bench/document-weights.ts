import 'reflect-metadata';
import { getNamedType, type GraphQLObjectType, isLeafType, isObjectType, isRequiredArgument, parse, validate, type DocumentNode } from 'graphql';
import { buildApiSchema } from '../src/areas/index.js';
import { compileQuery, isCompiledQuery, type CompilerOptions } from 'graphql-jit';

/**
 * `node --expose-gc dist/bench/document-weights.js [count] [shape]`: the heap a parsed GraphQL
 * document and its graphql-jit compiled operation keep, per document of each shape below (count of
 * them, 300 by default, against the real schema; live heap after a full GC), with the document's
 * length and tokens and the length of the generated code: the measurements behind the estimates of
 * http/graphql-caches.ts (OPERATIONS.md, "GraphQL caches").
 */
const schema = await buildApiSchema();
const gc = (globalThis as { gc?: () => void }).gc!;
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };

function tokens(document: DocumentNode): number {
  let count = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) count++;
  return count;
}

/**
 * A selection of every field without required arguments, root fields first and their object
 * fields to depth 3, cut at about 1,900 tokens: as much for graphql-jit to compile as one
 * document can ask for.
 */
function wideSelection(): string {
  let budget = 1900;
  const select = (type: GraphQLObjectType, depth: number): string => {
    const parts: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if (field.args.some(isRequiredArgument) || budget <= 0) continue;
      const named = getNamedType(field.type);
      if (isLeafType(named)) {
        parts.push(field.name);
        budget--;
      } else if (isObjectType(named) && depth < 3 && budget > 10) {
        budget -= 3;
        const inner = select(named, depth + 1);
        if (inner) parts.push(`${field.name} { ${inner} }`);
      }
    }
    return parts.join(' ');
  };
  return select(schema.getQueryType()!, 0);
}
const wide = wideSelection();
/** Every root field without required arguments, each asking for the least it can: most compiled code per token. */
const roots = Object.values(schema.getQueryType()!.getFields()).filter((field) => !field.args.some(isRequiredArgument))
  .map((field) => (isLeafType(getNamedType(field.type)) ? field.name : `${field.name} { __typename }`)).join(' ');

const shapes: Record<string, (n: number) => string> = {
  typical: (n) => `query Page${n} {
  first: vendors(options: { Take: 5, Skip: ${n} }, text: "v${n}") { VendorId Name WebsiteUrl Actions }
  second: vendors(options: { Take: 10, Skip: ${n + 1}, OrderBy: "Name" }) { VendorId Name WebsiteUrl }
  terms: termsOfUseList(options: { Take: ${(n % 50) + 1} }) { TermsOfUseId Name }
  third: vendors(text: "name ${n}") { VendorId Name }
  me: aboutMe { __typename }
}`,
  tiny: (n) => `query Tiny${n} { aboutMe { __typename } }`,
  lists: (n) => `query Lists${n} { ${Array.from({ length: 15 }, (_, index) => `a${index}: vendors { Actions }`).join(' ')} terms: termsOfUseList { Name } }`,
  fragments: (n) => `query Fragments${n} { ${Array.from({ length: 15 }, (_, index) => `a${index}: vendors { ...F }`).join(' ')} } fragment F on VendorCollectionItem { VendorId Name WebsiteUrl Actions }`,
  short: (n) => `{ vendors(text: "${n}") { ${'...A '.repeat(990)} } } fragment A on VendorCollectionItem { Name }`,
  wide: (n) => `query Wide${n} {\n  ${wide}\n}`,
  roots: (n) => `query Roots${n} { ${roots} }`,
  literals: (n) => `query Literals${n} { ${Array.from({ length: 15 }, (_, index) => `a${index}: vendors(options: { Take: ${index + 1}, Skip: ${n}, Top: 3, OrderBy: "Name", Filter: "f${n}", CalendarStartDate: "2020-01-01", CalendarEndDate: "2021-01-01" }, text: "t${n}", length: "l") { VendorId }`).join(' ')} }`,
  comments: (n) => `{ vendors(text: "${n}") { Name } }${'#\n'.repeat(50_000)}`,
  string: (n) => `{ vendors(text: "${n}${'x'.repeat(50_000)}") { Name } }`,
};

/** graphql-jit's compiled query and the length of the code it generated (its `debug` option keeps that code on the result). */
function compile(document: DocumentNode): { run: () => unknown; codeLength: number } {
  const compiled = compileQuery(schema, document, undefined, { debug: true } as Partial<CompilerOptions>);
  if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled.errors));
  const debug = compiled as { __DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation?: string };
  const codeLength = debug.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation!.length;
  delete debug.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation;
  // The resolvers fail without a request context, which is fine here: the run makes the bytecode.
  return { run: () => Promise.resolve(compiled.query(undefined, {}, {})).catch(() => undefined), codeLength };
}

const count = Number(process.argv[2] ?? 300);
for (const [name, shape] of Object.entries(shapes).filter(([candidate]) => !process.argv[3] || candidate === process.argv[3])) {
  // Warm up: the first documents of a shape also pay for code and caches made once.
  for (let index = 0; index < 30; index++) await compile(parse(shape(index))).run();
  const before = heap();
  // Each source made here, as Apollo's is from the request body: a document keeps its source.
  const documents = Array.from({ length: count }, (_, index) => parse(shape(index + 1000), { maxTokens: 2000 }));
  const problems = validate(schema, documents[0]);
  if (problems.length) throw new Error(`${name}: ${problems.map((problem) => problem.message).join('; ')}`);
  const parsed = heap();
  const compiled = documents.map(compile);
  // A compiled query's bytecode is made on its first run.
  for (const { run } of compiled) await run();
  const afterCompile = heap();
  const [first] = documents;
  const length = first.loc!.source.body.length;
  const perDocument = (parsed - before) / count;
  const perCompiled = (afterCompile - parsed) / count;
  const { codeLength } = compiled[0];
  process.stdout.write(`${name}: length ${length}, tokens ${tokens(first)}, document ${perDocument.toFixed(0)} B (${(perDocument / length).toFixed(2)}/char, ${(perDocument / tokens(first)).toFixed(1)}/token); code ${codeLength}, compiled ${perCompiled.toFixed(0)} B (${(perCompiled / codeLength).toFixed(2)}/code char)\n`);
}
