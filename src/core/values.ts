/** Whether `value` is one of `allowed` (a list declared `as const`): narrows it to that union. */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/** A tenant key: the public, URL-safe name of a tenant (`?tenant=`, `X-Tenant-Key`, the CLI's `--tenant`). */
export const TENANT_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
