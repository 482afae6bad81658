import { raw } from '@mikro-orm/core';
import type { RequestContext } from '../../core/context.js';
import { BadInput } from '../../core/errors.js';
import type { CustomFieldTarget } from '../../entities/custom-field.js';
import { MAX_CUSTOM_FIELD_FILTERS, type CustomFieldFilterInput } from '../../schema/custom-fields.js';
import { customFieldsFor } from './custom-fields.js';
import { customFieldCell, type CustomFieldDefinition } from './values.js';

/*
 * `CustomFieldFilters` of the contact and membership lists: the one way a list asks for custom
 * field values, as ORM conditions on the record's `custom_fields` column. Every condition given
 * must hold. `Value` is read in the CSV text form (values.ts `customFieldCell.parse`): the record
 * holds exactly that value (a multi-choice field: holds that choice, or all of "a; b"); an empty
 * Value means "has no value". That is a containment test (`custom_fields @> {"key": value}`),
 * served by the column's GIN index. `From`/`To` (number and date fields, inclusive) compare the
 * stored value; the GIN index cannot serve a range, which the tenant's own index then narrows.
 */

/** The condition, or null without filters; `scope(target)` is the record's own condition for a target (a contact's kind). */
export async function customFieldCondition(
  ctx: RequestContext, targets: readonly CustomFieldTarget[], filters: readonly CustomFieldFilterInput[] | null | undefined,
  scope: (target: CustomFieldTarget) => object | null,
): Promise<object | null> {
  if (!filters?.length) return null;
  if (filters.length > MAX_CUSTOM_FIELD_FILTERS) throw BadInput.field('CustomFieldFilters', `at most ${MAX_CUSTOM_FIELD_FILTERS} conditions`);
  const alternatives: object[] = [];
  const known = new Set<string>();
  for (const target of targets) {
    const byKey = new Map((await customFieldsFor(ctx, target, { includeRetired: true })).map((field) => [field.key, field]));
    for (const key of byKey.keys()) known.add(key);
    // A target that lacks one of the keys has no record that matches.
    if (!filters.every((filter) => byKey.has(filter.Key))) continue;
    const conditions = filters.flatMap((filter, index) => conditionsOf(byKey.get(filter.Key)!, filter, `CustomFieldFilters[${index}]`));
    alternatives.push({ $and: [scope(target) ?? {}, ...conditions] });
  }
  const unknown = filters.findIndex((filter) => !known.has(filter.Key));
  if (unknown >= 0) throw BadInput.field(`CustomFieldFilters[${unknown}].Key`, 'names no custom field of these records');
  // Keys known, but no target defines them all: nothing matches.
  if (!alternatives.length) return { id: { $in: [] } };
  return alternatives.length === 1 ? alternatives[0] : { $or: alternatives };
}

function conditionsOf(field: CustomFieldDefinition, filter: CustomFieldFilterInput, path: string): object[] {
  const conditions: object[] = [];
  if (filter.Value !== null && filter.Value !== undefined) {
    const value = parsed(field, filter.Value, `${path}.Value`);
    conditions.push(value === null
      ? { [raw((alias) => `not jsonb_exists(${alias}.custom_fields, ?)`, [field.key])]: true }
      : { [raw((alias) => `(${alias}.custom_fields @> ?::jsonb)`, [JSON.stringify({ [field.key]: value })])]: true });
  }
  for (const [bound, operator] of [['From', '>='], ['To', '<=']] as const) {
    const text = filter[bound]?.trim();
    if (!text) continue;
    if (field.kind !== 'number' && field.kind !== 'date') throw BadInput.field(`${path}.${bound}`, 'a range applies to number and date fields only');
    const value = parsed(field, text, `${path}.${bound}`);
    conditions.push(field.kind === 'number'
      ? { [raw((alias) => `(jsonb_typeof(${alias}.custom_fields -> ?) = 'number' and (${alias}.custom_fields -> ?) ${operator} to_jsonb(?::numeric))`, [field.key, field.key, value])]: true }
      : { [raw((alias) => `(jsonb_typeof(${alias}.custom_fields -> ?) = 'string' and (${alias}.custom_fields ->> ?) collate "C" ${operator} ?)`, [field.key, field.key, value])]: true });
  }
  if (!conditions.length) throw BadInput.field(path, 'needs a Value, From or To');
  return conditions;
}

/** The filter text as a stored value, its 400 naming the filter's own field. */
function parsed(field: CustomFieldDefinition, text: string, path: string) {
  try {
    return customFieldCell.parse(field, text);
  } catch (error) {
    if (error instanceof BadInput) throw BadInput.field(path, error.problems[0]?.message ?? 'is not a value of the field');
    throw error;
  }
}
