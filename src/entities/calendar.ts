import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';
import { Contact } from './contact.js';

/**
 * A calendar of the association (events will be listed on it once events exist).
 *
 * Chapter link: the documented `GroupId` is the id of the chapter (a Contact of kind
 * 'organization' with a parent organization) the calendar belongs to, held here as a foreign key
 * to `contact`. A calendar belongs to at most one chapter; `lookup/chapters/{chapterid}` lists the
 * calendars whose `chapter` is that contact. Contacts are only soft-deleted, so the link stays;
 * a hard delete clears it.
 *
 * Publishing: with `isICalPublishingEnabled`, `isPublicViewable` and `isActive` all set, the
 * calendar is served without a credential as an iCalendar feed (src/http/calendars.ts).
 */
@Entity()
@Index({ properties: ['tenant', 'name'] })
export class Calendar extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'boolean', default: true })
  isActive: Opt<boolean> = true;

  @Property({ type: 'boolean', default: false })
  isPublicViewable: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  isMemberViewable: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  allowPublicSubmission: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  allowMemberSubmission: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  isICalPublishingEnabled: Opt<boolean> = false;

  /** Text shown next to the feed link ("Add this calendar to ..."), as staff wrote it. */
  @Property({ type: 'text', nullable: true })
  addCalendarICalMessage: string | null = null;

  /** The chapter (documented GroupId) the calendar belongs to. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  chapter: Contact | null = null;
}

/** True when the calendar's iCalendar feed is served (publishing on, publicly viewable, active). */
export function isFeedPublished(calendar: Pick<Calendar, 'isICalPublishingEnabled' | 'isPublicViewable' | 'isActive'>): boolean {
  return calendar.isICalPublishingEnabled && calendar.isPublicViewable && calendar.isActive;
}
