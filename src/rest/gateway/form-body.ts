/**
 * `application/x-www-form-urlencoded` bodies, bound the way ASP.NET Web API bound them for the
 * legacy clients that send them (jQuery's `$.post`, HTML forms, PHP cURL): `Name=…` fields,
 * nested `Address.City` or `Address[City]`, indexed `Items[0].Name` / `Items[0][Name]`, and
 * repeated or empty-bracketed names (`Tags=a&Tags=b`, `Tags[]=a`) as arrays. Values stay text;
 * the gateway converts numbers and booleans where the documented type asks for them.
 */
export function formToObject(text: string): unknown {
  const root: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = pathOf(name);
    if (path.length === 0) continue;
    assign(root, path, value);
  }
  // A body that is a list (`[]=a&[]=b`, `[0]=a`) binds to the list itself.
  return Object.keys(root).length === 1 && '' in root ? root[''] : root;
}

/** `Items[0][Name]`, `Items[0].Name` → ['Items', 0, 'Name']; `Tags[]` → ['Tags', '[]']; `[]` → ['', '[]']. */
function pathOf(name: string): (string | number)[] {
  const path: (string | number)[] = [];
  const pattern = /([^.[\]]+)|\[([^\]]*)\]/g;
  if (name.startsWith('[')) path.push('');
  for (const match of name.matchAll(pattern)) {
    if (match[1] !== undefined) path.push(match[1]);
    else if (match[2] === '') path.push('[]');
    else path.push(/^\d{1,4}$/.test(match[2]) ? Number(match[2]) : match[2]);
  }
  return path;
}

type Container = Record<string, unknown> | unknown[];

function assign(target: Container, path: (string | number)[], value: string): void {
  const [key, ...rest] = path;
  if (key === undefined) return;
  if (rest.length === 0) {
    if (key === '[]') (target as unknown[]).push(value);
    else append(target, key, value);
    return;
  }
  const next = rest[0];
  const wantsList = next === '[]' || typeof next === 'number';
  let child = key === '[]' ? undefined : (target as Record<string | number, unknown>)[key];
  if (child === undefined || child === null || typeof child !== 'object') {
    child = wantsList ? [] : {};
    if (key === '[]') (target as unknown[]).push(child);
    else (target as Record<string | number, unknown>)[key] = child;
  }
  assign(child as Container, rest, value);
}

/** A repeated plain name collects its values into an array, as model binding did. */
function append(target: Container, key: string | number, value: string): void {
  const record = target as Record<string | number, unknown>;
  const existing = record[key];
  if (existing === undefined) record[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else record[key] = [existing, value];
}
