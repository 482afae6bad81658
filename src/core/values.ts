/** Whether `value` is one of `allowed` (a list declared `as const`): narrows it to that union. */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}
