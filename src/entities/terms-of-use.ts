import type { Opt } from '@mikro-orm/core';
import { Entity, Filter, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Contact } from './contact.js';
import { Login } from './login.js';

/**
 * Which portal a set of terms governs (the documented `LoginType`): `staff` for the back office,
 * `hub` for the member hub. The same words as the `type` of requestmagiclink.
 */
export const TERMS_LOGIN_TYPES = ['staff', 'hub'] as const;
export type TermsLoginType = (typeof TERMS_LOGIN_TYPES)[number];

/**
 * What kind of login gave a response (the documented `UserLoginTypeId`, filtered by
 * `LoginTypes`): `staff` when the login had the staff role at the time, else `member`.
 */
export const USER_LOGIN_TYPES = ['staff', 'member'] as const;
export type UserLoginType = (typeof USER_LOGIN_TYPES)[number];

/**
 * Terms of use of one portal. The newest (highest id) terms of a login type are the current ones.
 * `revision` counts changes of the text: every save that changes `description` starts a new
 * revision, so an acceptance (which records its revision) never silently covers a text the user
 * did not see. Deleting only stamps `deletedAt` (the `notDeleted` filter hides it), so the record
 * of who accepted what stays.
 */
@Entity({ tableName: 'terms_of_use' })
@Filter({ name: 'notDeleted', cond: { deletedAt: null }, default: true })
@Index({ properties: ['tenant', 'loginType'] })
@Index({ properties: ['tenant', 'nameKey'] })
export class TermsOfUse extends Versioned {
  @Property({ length: 200 })
  name!: string;

  /** The name folded for duplicate checks (case and whitespace ignored). */
  @Property({ length: 200 })
  nameKey!: string;

  /** The current text (sanitized HTML). */
  @Property({ type: 'text' })
  description!: string;

  @Property({ type: 'string', length: 16 })
  loginType!: TermsLoginType;

  @Property({ type: 'integer', default: 1 })
  revision: Opt<number> = 1;

  @Property({ type: 'datetime', nullable: true })
  deletedAt: Date | null = null;
}

/** The text of a revision someone accepted, kept when the terms are edited later. */
@Entity({ tableName: 'terms_of_use_text' })
@Unique({ properties: ['termsOfUse', 'revision'] })
export class TermsOfUseText extends TenantOwned {
  @ManyToOne(() => TermsOfUse, { deleteRule: 'cascade', filters: false })
  termsOfUse!: TermsOfUse;

  @Property({ type: 'integer' })
  revision!: number;

  @Property({ type: 'text' })
  text!: string;
}

/**
 * One recorded action of a login on terms of use: accepted or declined, when, from where. Its
 * relations are always in its own tenant, and it stays visible when the terms or the contact are
 * deleted (soft): `filters: false` keeps MikroORM from joining them to apply their filters.
 */
@Entity({ tableName: 'terms_user_response' })
@Index({ properties: ['tenant', 'termsLoginType', 'actionDate'] })
@Index({ properties: ['login', 'termsOfUse'] })
export class TermsUserResponse extends TenantOwned {
  @ManyToOne(() => TermsOfUse, { deleteRule: 'cascade', index: true, filters: false })
  termsOfUse!: TermsOfUse;

  /** The text revision the action was about. */
  @Property({ type: 'integer' })
  revision!: number;

  /** The LoginType of the terms at the time (which acceptance list the row is in). */
  @Property({ type: 'string', length: 16 })
  termsLoginType!: TermsLoginType;

  @ManyToOne(() => Login, { deleteRule: 'cascade', filters: false })
  login!: Login;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', filters: false })
  contact: Contact | null = null;

  @Property({ type: 'string', length: 16 })
  userLoginType!: UserLoginType;

  @Property({ type: 'boolean' })
  isAccepted!: boolean;

  @Property({ type: 'datetime' })
  actionDate!: Date;

  @Property({ length: 64 })
  ipAddress!: string;

  @Property({ length: 512, nullable: true })
  userAgent: string | null = null;
}

/** The duplicate-check form of a terms name: case and all whitespace ignored. */
export function termsNameKey(name: string): string {
  return name.replace(/\s+/g, '').toLowerCase();
}
