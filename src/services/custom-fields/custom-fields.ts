import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { choiceRule } from '../../core/argument-rules.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { allOf } from '../../core/data/lean-read.js';
import { assertCurrentVersion, findOr404, inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import {
  CUSTOM_FIELD_KEY_UNIQUE, CUSTOM_FIELD_TARGETS, CustomField, type CustomFieldKind, type CustomFieldTarget, type CustomFieldValues, type CustomFieldVisibility,
} from '../../entities/custom-field.js';
import type { Tenant } from '../../entities/tenant.js';
import { rowActions, type ListOptionsInput } from '../../schema/common.js';
import type { CustomFieldInput, CustomFieldModel } from '../../schema/custom-fields.js';
import { normalizeWithDefinitions, type CustomFieldDefinition } from './values.js';

/*
 * Custom field definitions (issue 38). Decided where the issue is silent, as an association's
 * administrator would want it:
 * - A field is never deleted: retiring hides it from forms (not required, not writable) and keeps
 *   its values, which staff still read and export; restoring brings it back as it was. Its key
 *   stays taken, so an old export never lands in a new field of the same key.
 * - The key is the field's stable machine name (imports, exports, filters and integrations use
 *   it): it cannot change (400 naming Key); the label can, freely. Nor can AppliesTo.
 * - The kind changes only while no record holds a value of the field (else 409 naming Kind:
 *   converting silently could lose or distort data; add a field of the new kind instead).
 * - A choice may be added, reordered or re-spelled freely only while unused: removing (or
 *   re-spelling) a choice some record holds is a 409 naming Choices and the choice.
 * - Making a field required does not touch existing records: each must have a value at its next
 *   save. Visibility changes take effect at the next read.
 * - At most MAX_FIELDS_PER_TARGET fields (retired included) per tenant and target (409).
 * Concurrency: AuditId on each definition; the key is unique per tenant and target by a unique
 * index (of two concurrent creates of one key, one 200 and one 409 naming Key). A definition save
 * locks its row before counting the values in use, and every write of values reads the
 * definitions FOR SHARE in its transaction, so a choice cannot be removed while a write that
 * uses it is in flight, nor a write pass the check of a definition being changed.
 */

const NOUN = 'The custom field';
/** A definition's target (the list's `appliesTo` argument, a save's AppliesTo): one of the targets, in any case. */
export const APPLIES_TO_RULE = choiceRule(CUSTOM_FIELD_TARGETS);
/** The most fields a tenant may define per target (retired ones included). */
export const MAX_FIELDS_PER_TARGET = 200;

const customFieldList = defineList(CustomField, {
  operations: ['Query.customFields'],
  orderBy: { Position: 'position', Key: 'key', Label: 'label', CustomFieldId: 'id' },
  defaultOrder: 'Position',
  search: ['key', 'label'],
}, 'few');

const DEFINITION_FIELDS = ['id', 'appliesTo', 'key', 'label', 'kind', 'choices', 'required', 'visibility', 'position', 'retiredAt', 'auditId'] as const;

interface DefinitionRow {
  id: number; applies_to: CustomFieldTarget; key: string; label: string; kind: CustomFieldKind; choices: string[]; required: boolean;
  visibility: CustomFieldVisibility; position: number; retired_at: Date | null; audit_id: number;
}

/**
 * The tenant's field definitions for `appliesTo`, in position order (retired ones only with
 * `includeRetired`). Inside a transaction (a write of values) they are read FOR SHARE: a
 * concurrent change of a definition waits for this write, and this write for it.
 */
export async function customFieldsFor(ctx: RequestContext, appliesTo: CustomFieldTarget, options: { includeRetired?: boolean } = {}): Promise<CustomFieldDefinition[]> {
  const lock = ctx.em.isInTransaction() ? ' for share' : '';
  const rows = await tenantSql(ctx).all<DefinitionRow>(
    `select id, applies_to, key, label, kind, choices, required, visibility, position, retired_at, audit_id from custom_field
      where ${tenantIs()} and applies_to = ?${options.includeRetired ? '' : ' and retired_at is null'} order by position, key${lock}`, [appliesTo]);
  return rows.map((row) => ({
    id: row.id, appliesTo: row.applies_to, key: row.key, label: row.label, kind: row.kind, choices: row.choices, required: row.required,
    visibility: row.visibility, position: row.position, retiredAt: row.retired_at, auditId: row.audit_id,
  }));
}

/**
 * The values a write of a record of `appliesTo` stores: `input` (the CustomFields object sent;
 * null or absent changes nothing) merged over `previous`, every value checked and normalised
 * (values.ts). 400 naming each `CustomFields.<key>` otherwise.
 */
export async function normalizeCustomFieldValues(
  ctx: RequestContext, appliesTo: CustomFieldTarget, input: unknown, previous: CustomFieldValues = {},
): Promise<CustomFieldValues> {
  return normalizeWithDefinitions(await customFieldsFor(ctx, appliesTo, { includeRetired: true }), input, previous);
}

// ---- the staff operations on definitions ----

/** The definitions, one page in position order; of one target, retired ones only on request. */
export async function listCustomFields(
  ctx: RequestContext, appliesTo: CustomFieldTarget | null, includeRetired: boolean | null | undefined, options: ListOptionsInput | null | undefined,
): Promise<CustomFieldModel[]> {
  const where = allOf<CustomField>(appliesTo ? { appliesTo } : null, includeRetired ? null : { retiredAt: null });
  const { rows } = await listQuery(ctx, CustomField, customFieldList, options, { fields: DEFINITION_FIELDS, where });
  return rows.map((row) => toModel(ctx, row));
}

export async function getCustomField(ctx: RequestContext, customFieldId: number): Promise<CustomFieldModel> {
  return toModel(ctx, await readOr404(ctx, CustomField, DEFINITION_FIELDS, customFieldId, NOUN));
}

/** Create (0) or change a definition (the rules above). */
export async function saveCustomField(ctx: RequestContext, customFieldId: number, input: CustomFieldInput): Promise<CustomFieldModel> {
  const appliesTo = APPLIES_TO_RULE.parse(input.AppliesTo, 'AppliesTo');
  const kind = input.Kind as CustomFieldKind;
  const choices = checkedChoices(input.Choices);
  const fields = { label: input.Label.trim(), kind, choices, required: input.Required ?? false, visibility: (input.Visibility ?? 'staff') as CustomFieldVisibility };
  try {
    const saved = await inTransaction(ctx, async () => {
      if (!customFieldId) return createField(ctx, appliesTo, input, fields);
      const field = await findOr404(ctx, CustomField, customFieldId, NOUN);
      assertCurrentVersion(field, input.AuditId);
      // Locked before the values are counted: a write of values waits (its definitions are read FOR SHARE), and sees the change.
      await tenantSql(ctx).run(`select id from custom_field where id = ? and ${tenantIs()} for update`, [field.id]);
      if (field.appliesTo !== appliesTo) throw BadInput.field('AppliesTo', `cannot change: the field is defined on ${field.appliesTo}`);
      if (field.key !== input.Key) throw BadInput.field('Key', 'cannot change (imports, exports and filters refer to it): add a field and retire this one');
      if (field.kind !== kind && await countValues(ctx, field, null) > 0) {
        throw new Conflict('Records hold values of this field: its kind cannot change. Add a field of the new kind and retire this one.', [{ field: 'Kind', message: `cannot change from ${field.kind} while records hold values` }]);
      }
      if (field.kind === kind) await refuseRemovedChoicesInUse(ctx, field, choices);
      ctx.em.assign(field, { ...fields, position: input.Position ?? field.position, updatedAt: new Date() });
      await ctx.em.flush();
      return field;
    });
    return toModel(ctx, saved);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException && error.message.includes(CUSTOM_FIELD_KEY_UNIQUE)) throw keyTaken();
    throw error;
  }
}

async function createField(
  ctx: RequestContext, appliesTo: CustomFieldTarget, input: CustomFieldInput, fields: Pick<CustomField, 'label' | 'kind' | 'choices' | 'required' | 'visibility'>,
): Promise<CustomField> {
  const [counts] = await tenantSql(ctx).all<{ count: number; last: number | null }>(
    `select count(*)::int as count, max(position) as last from custom_field where ${tenantIs()} and applies_to = ?`, [appliesTo]);
  if (counts.count >= MAX_FIELDS_PER_TARGET) throw new Conflict(`A tenant defines at most ${MAX_FIELDS_PER_TARGET} fields per target (retired ones included).`);
  const field = ctx.em.create(CustomField, {
    tenant: ctx.tenantId, appliesTo, key: input.Key, ...fields, position: input.Position ?? (counts.last ?? -1) + 1,
  });
  await ctx.em.persist(field).flush();
  return field;
}

/** Retires (or, with `retired` false, restores) a field at the AuditId read: one conditional UPDATE. */
export async function setCustomFieldRetired(ctx: RequestContext, customFieldId: number, auditId: number, retired: boolean): Promise<CustomFieldModel> {
  const changed = await tenantSql(ctx).all<{ id: number }>(
    `update custom_field set retired_at = ${retired ? 'coalesce(retired_at, now())' : 'null'}, audit_id = audit_id + 1, updated_at = now()
      where id = ? and ${tenantIs()} and audit_id = ? returning id`, [customFieldId, auditId]);
  if (!changed.length) {
    const field = await readOr404(ctx, CustomField, ['auditId'], customFieldId, NOUN);
    assertCurrentVersion(field as CustomField, auditId);
  }
  return toModel(ctx, await readOr404(ctx, CustomField, DEFINITION_FIELDS, customFieldId, NOUN));
}

// ---- rules ----

/**
 * Choices of a (multi-)choice field, trimmed: distinct ignoring case. How many a kind has, and
 * that none is blank or holds ";" (the CSV separator), are CustomFieldInput's rules.
 */
function checkedChoices(given: string[] | null | undefined): string[] {
  const choices = (given ?? []).map((choice) => choice.trim());
  const seen = new Set<string>();
  for (const choice of choices) {
    if (seen.has(choice.toLowerCase())) throw BadInput.field('Choices', `"${choice}" is listed twice`);
    seen.add(choice.toLowerCase());
  }
  return choices;
}

/** The SQL of the records of a target (archived contacts included: their values are kept too). */
function recordsOf(appliesTo: CustomFieldTarget): { table: string; condition: string } {
  return appliesTo === 'membership' ? { table: 'membership', condition: '' } : { table: 'contact', condition: `and r.kind = '${appliesTo}'` };
}

/** How many records hold a value of the field (`containing`: that JSON value, or any value). */
async function countValues(ctx: RequestContext, field: Pick<CustomField, 'appliesTo' | 'key'>, containing: unknown): Promise<number> {
  const { table, condition } = recordsOf(field.appliesTo);
  const test = containing === null ? 'jsonb_exists(r.custom_fields, ?)' : 'r.custom_fields @> ?::jsonb';
  const [row] = await tenantSql(ctx).all<{ count: number }>(
    `select count(*)::int as count from ${table} r where ${tenantIs('r')} ${condition} and ${test}`,
    [containing === null ? field.key : JSON.stringify({ [field.key]: containing })]);
  return row.count;
}

async function refuseRemovedChoicesInUse(ctx: RequestContext, field: CustomField, choices: string[]): Promise<void> {
  for (const removed of field.choices.filter((choice) => !choices.includes(choice))) {
    const used = await countValues(ctx, field, field.kind === 'multi_choice' ? [removed] : removed);
    if (used > 0) {
      throw new Conflict(`The choice "${removed}" is held by ${used} record(s): change their values first, or retire the field.`, [{ field: 'Choices', message: `"${removed}" is in use` }]);
    }
  }
}

function keyTaken(): Conflict {
  return new Conflict('Another custom field of this target has this key (retired fields keep theirs).', [{ field: 'Key', message: 'is taken' }]);
}

function toModel(ctx: RequestContext, row: Pick<CustomField, (typeof DEFINITION_FIELDS)[number]>): CustomFieldModel {
  return {
    CustomFieldId: row.id, AppliesTo: row.appliesTo, Key: row.key, Label: row.label, Kind: row.kind, Choices: row.choices, Required: row.required,
    Visibility: row.visibility, Position: row.position, IsRetired: row.retiredAt !== null, RetiredDate: row.retiredAt ? new Date(row.retiredAt).toISOString() : null,
    AuditId: row.auditId, Actions: rowActions(ctx.isStaff),
  };
}

/** Demo definitions for a new tenant: one of each target, public, so listings and sweeps have some. */
export async function seedCustomFields(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  em.create(CustomField, { tenant, appliesTo: 'person', key: 'member_since_year', label: `${marker}Member since`, kind: 'number', visibility: 'public', position: 0 });
  em.create(CustomField, { tenant, appliesTo: 'organization', key: 'sector', label: `${marker}Sector`, kind: 'choice', choices: ['Retail', 'Services', 'Manufacturing'], visibility: 'public', position: 0 });
  em.create(CustomField, { tenant, appliesTo: 'membership', key: 'referred_by', label: `${marker}Referred by`, kind: 'text', visibility: 'staff', position: 0 });
  await em.flush();
}
