/** Whether `value` is one of `allowed` (a list declared `as const`): narrows it to that union. */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/** A tenant key: the public, URL-safe name of a tenant (`?tenant=`, `X-Tenant-Key`, the CLI's `--tenant`). */
export const TENANT_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/**
 * A field documented as `str` that holds JSON (a directory's KeywordSearchOptions, a store item's
 * Settings) as the text it answers: text is stored as sent; rows written before these fields took
 * only text may hold a JSON value, which is answered as its JSON text.
 */
export function jsonText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
