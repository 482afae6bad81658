/**
 * Postal code → coordinates, from the centroid table the `zipcodes` package ships (US ZIP codes
 * and Canadian forward sortation areas): no external geocoder, no network. The table (a few MB)
 * is loaded on first use only.
 */
export interface Coordinates {
  latitude: number;
  longitude: number;
}

type ZipLookup = (code: string) => { latitude: number; longitude: number } | undefined;
let lookup: Promise<ZipLookup> | null = null;

/** The postal code as the table keys it: a US ZIP's first five digits, a Canadian code upper-cased; null when it is neither. */
export function normalizePostalCode(value: string | null | undefined): string | null {
  const text = (value ?? '').trim().toUpperCase();
  const us = /^(\d{5})(?:-?\d{4})?$/.exec(text);
  if (us) return us[1];
  if (/^[A-Z]\d[A-Z] ?\d[A-Z]\d$/.test(text)) return text.replace(' ', '');
  return null;
}

/** The centroid of a postal code, or null when the code is unknown. */
export async function geocodePostalCode(value: string | null | undefined): Promise<Coordinates | null> {
  const code = normalizePostalCode(value);
  if (!code) return null;
  lookup ??= import('zipcodes').then((module) => module.default.lookup);
  const found = (await lookup)(code);
  return found && Number.isFinite(found.latitude) && Number.isFinite(found.longitude) ? { latitude: found.latitude, longitude: found.longitude } : null;
}
