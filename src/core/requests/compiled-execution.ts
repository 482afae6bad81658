import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompilerOptions } from 'graphql-jit';

export type CompiledOperation = (contextValue: object, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;

/**
 * An operation compiled once with graphql-jit (in our benchmark several times cheaper to run than
 * graphql-js), or plain graphql-js execution where graphql-jit cannot compile it; with the length
 * of the code graphql-jit generated (0 for graphql-js), from which a cache estimates what the
 * compiled operation keeps on the heap (http/graphql-caches.ts).
 */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): { run: CompiledOperation; generatedCodeLength: number } {
  // `debug` (not in graphql-jit's types) leaves the generated code on the result: only its length is kept.
  const compiled = compileQuery(schema, document, operationName, { debug: true } as Partial<CompilerOptions>);
  if (!isCompiledQuery(compiled)) {
    return { run: (contextValue, variableValues) => execute({ schema, document, contextValue, variableValues, operationName }), generatedCodeLength: 0 };
  }
  const withCode = compiled as { __DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation?: string };
  const code = withCode.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation;
  // A graphql-jit upgrade that drops it must not leave the caches weighing nothing: every test fails instead.
  if (code === undefined) throw new Error('graphql-jit returned no generated code (its debug option): compiled operations cannot be weighed');
  delete withCode.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation;
  const run: CompiledOperation = (contextValue, variables) => {
    const result = compiled.query(undefined, contextValue, variables);
    return result instanceof Promise ? result.then(withExtensions) : withExtensions(result);
  };
  return { run, generatedCodeLength: code.length };
}

/**
 * graphql-jit's errors carry `extensions` only when the thrown error had them (a database error
 * has none); graphql-js always sets an object, and Apollo reads it unguarded (a missing one made
 * the answer a bare "Internal server error"). Such errors are made again as graphql-js makes them.
 */
function withExtensions(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some(lacksExtensions)) return result;
  const errors = result.errors.map((error) => (lacksExtensions(error)
    ? new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError ?? undefined })
    : error));
  return { ...result, errors };
}

/** Typed as always present, but absent on graphql-jit's errors of a thrown error without them. */
function lacksExtensions(error: GraphQLError): boolean {
  return !(error.extensions as GraphQLError['extensions'] | undefined);
}
