import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';

export type CompiledOperation = (contextValue: object, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;

/**
 * An operation compiled once with graphql-jit (in our benchmark several times cheaper to run than
 * graphql-js), or plain graphql-js execution where graphql-jit cannot compile it.
 */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): CompiledOperation {
  const compiled = compileQuery(schema, document, operationName);
  if (!isCompiledQuery(compiled)) return (contextValue, variableValues) => execute({ schema, document, contextValue, variableValues, operationName });
  return (contextValue, variables) => {
    const result = compiled.query(undefined, contextValue, variables);
    return result instanceof Promise ? result.then(withExtensions) : withExtensions(result);
  };
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
