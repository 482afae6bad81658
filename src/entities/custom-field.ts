import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';

/** What a custom field is defined on: a person, an organization (both contacts) or a membership term. */
export const CUSTOM_FIELD_TARGETS = ['person', 'organization', 'membership'] as const;
export type CustomFieldTarget = (typeof CUSTOM_FIELD_TARGETS)[number];

/** The kinds of value a custom field holds. */
export const CUSTOM_FIELD_KINDS = ['text', 'number', 'date', 'choice', 'multi_choice', 'yes_no'] as const;
export type CustomFieldKind = (typeof CUSTOM_FIELD_KINDS)[number];

/** Who may read a field's values: staff only, also signed-in members, or also the public (public directory listings). */
export const CUSTOM_FIELD_VISIBILITIES = ['staff', 'members', 'public'] as const;
export type CustomFieldVisibility = (typeof CUSTOM_FIELD_VISIBILITIES)[number];

/** One stored value, normalised (services/custom-fields/values.ts): text, number, date (yyyy-mm-dd), choice, choices, yes/no. */
export type CustomFieldValue = string | number | boolean | string[];
/** The values of one record (`contact.custom_fields`, `membership.custom_fields`), keyed by field key. */
export type CustomFieldValues = Record<string, CustomFieldValue>;

/** Keys are stable machine names: imports, exports, filters and integrations refer to them. */
export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,62}$/;

/** The unique index that makes a key taken once per tenant and target, retired fields included. */
export const CUSTOM_FIELD_KEY_UNIQUE = 'custom_field_tenant_id_applies_to_key_unique';

/**
 * A field a tenant adds to its people, organizations or memberships. Retiring stamps `retiredAt`:
 * the field and its values stay (read, not required, not writable) and its key stays taken.
 */
@Entity()
@Index({ name: CUSTOM_FIELD_KEY_UNIQUE, expression: `create unique index "${CUSTOM_FIELD_KEY_UNIQUE}" on "custom_field" ("tenant_id", "applies_to", "key")` })
export class CustomField extends Versioned {

  @Property({ type: 'string', length: 16 })
  appliesTo!: CustomFieldTarget;

  @Property({ length: 63 })
  key!: string;

  @Property({ length: 200 })
  label!: string;

  @Property({ type: 'string', length: 16 })
  kind!: CustomFieldKind;

  /** The choices of a choice or multi-choice field, in display order (empty for other kinds). */
  @Property({ type: 'json' })
  choices: Opt<string[]> = [];

  @Property({ type: 'boolean' })
  required: Opt<boolean> = false;

  @Property({ type: 'string', length: 16 })
  visibility: Opt<CustomFieldVisibility> = 'staff';

  @Property({ type: 'integer' })
  position: Opt<number> = 0;

  @Property({ type: 'datetime', nullable: true })
  retiredAt: Date | null = null;
}
