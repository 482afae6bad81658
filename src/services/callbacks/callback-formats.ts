import { createHash } from 'node:crypto';
import type { CallbackProvider, EmailEventKind, MeetingEventKind } from '../../entities/callback.js';

/**
 * The five provider formats we model (the documents show none of them) and their translation
 * into our e-mail and meeting events. README "Inbound provider callbacks" documents them.
 *
 * - emailprovider1 (SendGrid-style): a JSON array of events `{ sg_event_id, event, email, timestamp, type?, url?, reason? }`.
 * - emailprovider2 (Mandrill-style; the documented body "array of StringModel"): a JSON array of
 *   strings, each one JSON-encoded event `{ _id, event, ts, msg: { email, ... }, url? }`.
 * - emailprovider3 (Mailgun-style): one event per request, `{ "event-data": { id, event, recipient, timestamp, severity?, url? } }`.
 * - emailprovider4 (Postmark-style): one event per request, named by `RecordType`.
 * - meetingprovider (Zoom-style): `{ event, event_ts, payload: { object: { id, uuid, topic, participant? } } }`.
 */

export interface EmailEventInput {
  eventId: string;
  kind: EmailEventKind;
  bounceType: 'hard' | 'soft' | null;
  email: string;
  occurredAt: string;
  url: string | null;
  reason: string | null;
}

export interface MeetingEventInput {
  eventId: string;
  kind: MeetingEventKind;
  meetingId: string;
  meetingUuid: string | null;
  topic: string | null;
  participantName: string | null;
  participantEmail: string | null;
  occurredAt: string;
}

export interface NormalizedCallback {
  email: EmailEventInput[];
  meeting: MeetingEventInput[];
  /** Events of kinds we do not record (e.g. "processed", "accepted"). */
  skipped: number;
  /** Events that cannot be recorded (a field missing or unstorable), each with where and why: kept aside, never blocking the others. */
  parked: ParkedEvent[];
}

/** An event of a callback set aside: which one, and why. */
export interface ParkedEvent {
  event: string;
  reason: string;
}

/** A stored callback whose content cannot be processed; the message says where. */
export class MalformedCallback extends Error {
  override name = 'MalformedCallback';
}

/** The meeting provider's endpoint check: answered, never stored. */
export function urlValidationToken(provider: CallbackProvider, body: unknown): string | null {
  if (provider !== 'meetingprovider' || !isObject(body) || body.event !== 'endpoint.url_validation') return null;
  const token = isObject(body.payload) ? body.payload.plainToken : undefined;
  return typeof token === 'string' && token.length > 0 && token.length <= 200 ? token : null;
}

/**
 * Checked on receipt, before storing (400 otherwise): the body's outer shape. Everything inside
 * is checked when processing, so a provider is never made to retry for content we could fix.
 */
export function shapeProblem(provider: CallbackProvider, body: unknown): string | null {
  switch (provider) {
    case 'emailprovider1':
      return Array.isArray(body) ? null : 'must be a JSON array of events';
    case 'emailprovider2':
      return Array.isArray(body) && body.every((item) => typeof item === 'string') ? null : 'must be a JSON array of strings (one JSON-encoded event each)';
    case 'emailprovider3':
      return isObject(body) && isObject(body['event-data']) ? null : 'must be a JSON object with "event-data"';
    case 'emailprovider4':
      return isObject(body) && typeof body.RecordType === 'string' ? null : 'must be a JSON object with "RecordType"';
    case 'meetingprovider':
      return isObject(body) && typeof body.event === 'string' ? null : 'must be a JSON object with "event"';
  }
}

/** The events in a stored callback body. Throws MalformedCallback when an event lacks what we need. */
export function normalizeCallback(provider: CallbackProvider, body: unknown, receivedAt: Date): NormalizedCallback {
  const result: NormalizedCallback = { email: [], meeting: [], skipped: 0, parked: [] };
  const fallbackTime = receivedAt.toISOString();
  // Each event on its own: one that cannot be recorded is parked with its reason, and the rest go on.
  const add = (where: string, normalize: () => EmailEventInput | MeetingEventInput | null) => {
    let event: EmailEventInput | MeetingEventInput | null;
    try {
      event = normalize();
    } catch (error) {
      if (!(error instanceof MalformedCallback)) throw error;
      result.parked.push({ event: where, reason: error.message });
      return;
    }
    // The last word before the database: text a format built from what the provider sent (an id put
    // together from several fields) must be storable too, or the whole callback would fail.
    const unstorable = event && Object.entries(event).find(([, value]) => typeof value === 'string' && storable(value) !== value);
    if (unstorable) result.parked.push({ event: where, reason: `${where}: its ${unstorable[0]} holds characters that cannot be stored (NUL or a lone surrogate)` });
    else if (!event) result.skipped++;
    else if ('meetingId' in event) result.meeting.push(event);
    else result.email.push(event);
  };
  switch (provider) {
    case 'emailprovider1':
      list(body).forEach((event, index) => add(`event ${index}`, () => sendgridStyle(event, `event ${index}`, fallbackTime)));
      break;
    case 'emailprovider2':
      list(body).forEach((item, index) => add(`event ${index}`, () => mandrillStyle(item, `event ${index}`, fallbackTime)));
      break;
    case 'emailprovider3':
      add('event-data', () => mailgunStyle(body, 'event-data', fallbackTime));
      break;
    case 'emailprovider4':
      add('body', () => postmarkStyle(body, 'body', fallbackTime));
      break;
    case 'meetingprovider':
      add('body', () => zoomStyle(body, 'body', fallbackTime));
      break;
  }
  return result;
}

function sendgridStyle(event: unknown, where: string, fallbackTime: string): EmailEventInput | null {
  const e = object(event, where);
  const type = text(e.event, `${where}.event`);
  const mapping: Record<string, [EmailEventKind, ('hard' | 'soft' | null)?]> = {
    delivered: ['delivered'], deferred: ['deferred'], open: ['open'], click: ['click'],
    spamreport: ['spam_report'], unsubscribe: ['unsubscribe'], group_unsubscribe: ['unsubscribe'],
    // SendGrid's bounce event: type "bounce" is permanent, "blocked" temporary.
    bounce: ['bounce', optionalText(e.type) === 'blocked' ? 'soft' : 'hard'],
  };
  const mapped = mapping[type];
  if (!mapped) return null;
  return {
    eventId: eventId(text(e.sg_event_id, `${where}.sg_event_id`)),
    kind: mapped[0],
    bounceType: mapped[1] ?? null,
    email: address(e.email, `${where}.email`),
    occurredAt: unixTime(e.timestamp, `${where}.timestamp`) ?? fallbackTime,
    url: clip(optionalText(e.url), 2048),
    reason: clip(optionalText(e.reason) ?? optionalText(e.response), 1000),
  };
}

function mandrillStyle(item: unknown, where: string, fallbackTime: string): EmailEventInput | null {
  let event: unknown;
  try {
    event = JSON.parse(text(item, where));
  } catch (error) {
    if (error instanceof MalformedCallback) throw error;
    throw new MalformedCallback(`${where}: is not a JSON-encoded event`);
  }
  const e = object(event, where);
  const type = text(e.event, `${where}.event`);
  const mapping: Record<string, [EmailEventKind, ('hard' | 'soft' | null)?]> = {
    delivered: ['delivered'], deferral: ['deferred'], hard_bounce: ['bounce', 'hard'], soft_bounce: ['bounce', 'soft'],
    open: ['open'], click: ['click'], spam: ['spam_report'], unsub: ['unsubscribe'],
  };
  const mapped = mapping[type];
  if (!mapped) return null;
  const msg = object(e.msg, `${where}.msg`);
  const id = text(e._id, `${where}._id`);
  // Mandrill's _id names the message, not the event: the message, the kind and the time together do.
  const ts = typeof e.ts === 'number' || typeof e.ts === 'string' ? String(e.ts) : '';
  const url = clip(optionalText(e.url), 2048);
  return {
    eventId: eventId(`${id}:${type}:${ts}${type === 'click' && url ? `:${url}` : ''}`),
    kind: mapped[0],
    bounceType: mapped[1] ?? null,
    email: address(msg.email, `${where}.msg.email`),
    occurredAt: unixTime(e.ts, `${where}.ts`) ?? fallbackTime,
    url,
    reason: clip(optionalText(msg.bounce_description) ?? optionalText(msg.diag), 1000),
  };
}

function mailgunStyle(body: unknown, where: string, fallbackTime: string): EmailEventInput | null {
  const e = object(object(body, 'body')['event-data'], where);
  const type = text(e.event, `${where}.event`);
  const permanent = optionalText(e.severity) === 'permanent';
  const mapping: Record<string, [EmailEventKind, ('hard' | 'soft' | null)?]> = {
    delivered: ['delivered'], opened: ['open'], clicked: ['click'], complained: ['spam_report'], unsubscribed: ['unsubscribe'],
    // A temporary failure is retried by the provider: a deferral; a permanent one is a hard bounce.
    failed: permanent ? ['bounce', 'hard'] : ['deferred'],
  };
  const mapped = mapping[type];
  if (!mapped) return null;
  const status = isObject(e['delivery-status']) ? e['delivery-status'] : {};
  return {
    eventId: eventId(text(e.id, `${where}.id`)),
    kind: mapped[0],
    bounceType: mapped[1] ?? null,
    email: address(e.recipient, `${where}.recipient`),
    occurredAt: unixTime(e.timestamp, `${where}.timestamp`) ?? fallbackTime,
    url: clip(optionalText(e.url), 2048),
    reason: clip(optionalText(status.description) || optionalText(status.message) || optionalText(e.reason), 1000),
  };
}

function postmarkStyle(body: unknown, where: string, fallbackTime: string): EmailEventInput | null {
  const e = object(body, where);
  const type = text(e.RecordType, `${where}.RecordType`);
  const messageId = () => text(e.MessageID, `${where}.MessageID`);
  switch (type) {
    case 'Delivery':
      return postmark(e, `Delivery:${messageId()}:${optionalText(e.Recipient) ?? ''}`, 'delivered', null, 'Recipient', 'DeliveredAt', where, fallbackTime);
    case 'Bounce': {
      const bounce = optionalText(e.Type) ?? '';
      // HardBounce and BadEmailAddress are permanent; Transient is a deferral; the rest soft bounces.
      if (bounce === 'Transient') return postmark(e, `Bounce:${id(e.ID, `${where}.ID`)}`, 'deferred', null, 'Email', 'BouncedAt', where, fallbackTime);
      const hard = bounce === 'HardBounce' || bounce === 'BadEmailAddress';
      return postmark(e, `Bounce:${id(e.ID, `${where}.ID`)}`, 'bounce', hard ? 'hard' : 'soft', 'Email', 'BouncedAt', where, fallbackTime);
    }
    case 'SpamComplaint':
      return postmark(e, `SpamComplaint:${id(e.ID, `${where}.ID`)}`, 'spam_report', null, 'Email', 'BouncedAt', where, fallbackTime);
    case 'Open':
      return postmark(e, `Open:${messageId()}:${optionalText(e.Recipient) ?? ''}:${optionalText(e.ReceivedAt) ?? ''}`, 'open', null, 'Recipient', 'ReceivedAt', where, fallbackTime);
    case 'Click':
      return postmark(e, `Click:${messageId()}:${optionalText(e.Recipient) ?? ''}:${optionalText(e.ReceivedAt) ?? ''}:${optionalText(e.OriginalLink) ?? ''}`, 'click', null, 'Recipient', 'ReceivedAt', where, fallbackTime);
    case 'SubscriptionChange':
      // SuppressSending false is a re-subscription: not one of our events.
      if (e.SuppressSending !== true) return null;
      return postmark(e, `SubscriptionChange:${messageId()}:${optionalText(e.Recipient) ?? ''}:${optionalText(e.ChangedAt) ?? ''}`, 'unsubscribe', null, 'Recipient', 'ChangedAt', where, fallbackTime);
    default:
      return null;
  }
}

function postmark(
  e: Record<string, unknown>, key: string, kind: EmailEventKind, bounceType: 'hard' | 'soft' | null,
  emailField: string, timeField: string, where: string, fallbackTime: string,
): EmailEventInput {
  return {
    eventId: eventId(key),
    kind,
    bounceType,
    email: address(e[emailField], `${where}.${emailField}`),
    occurredAt: isoTime(e[timeField], `${where}.${timeField}`) ?? fallbackTime,
    url: kind === 'click' ? clip(optionalText(e.OriginalLink), 2048) : null,
    reason: clip(optionalText(e.Description) ?? optionalText(e.Details), 1000),
  };
}

function zoomStyle(body: unknown, where: string, fallbackTime: string): MeetingEventInput | null {
  const e = object(body, where);
  const type = text(e.event, `${where}.event`);
  const kinds: Record<string, MeetingEventKind> = {
    'meeting.started': 'started', 'meeting.ended': 'ended',
    'meeting.participant_joined': 'participant_joined', 'meeting.participant_left': 'participant_left',
  };
  const kind = kinds[type];
  if (!kind) return null;
  const meeting = object(object(e.payload, `${where}.payload`).object, `${where}.payload.object`);
  const meetingId = id(meeting.id, `${where}.payload.object.id`);
  const participant = kind.startsWith('participant') ? object(meeting.participant, `${where}.payload.object.participant`) : null;
  const participantKey = participant ? optionalText(participant.participant_uuid) ?? optionalText(participant.user_id) ?? optionalText(participant.id) ?? '' : '';
  const timeField = { started: 'start_time', ended: 'end_time', participant_joined: 'join_time', participant_left: 'leave_time' }[kind];
  const eventTs = unixMillis(e.event_ts, `${where}.event_ts`);
  const time = isoTime((participant ?? meeting)[timeField], `${where}.payload.object.${participant ? 'participant.' : ''}${timeField}`)
    ?? (eventTs === null ? null : unixTime(Number(eventTs) / 1000, `${where}.event_ts`))
    ?? fallbackTime;
  const participantEmail = participant && optionalText(participant.email) ? address(participant.email, `${where}.payload.object.participant.email`) : null;
  return {
    // Zoom-style events have no id of their own: the kind, the meeting instance, the participant and the event time do.
    eventId: eventId(`${type}:${optionalText(meeting.uuid) ?? meetingId}:${participantKey}:${eventTs ?? time}`),
    kind,
    meetingId: clip(meetingId, 64)!,
    meetingUuid: clip(optionalText(meeting.uuid), 128),
    topic: clip(optionalText(meeting.topic), 300),
    participantName: participant ? clip(optionalText(participant.user_name), 200) : null,
    participantEmail,
    occurredAt: time,
  };
}

// ---- helpers ----

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(body: unknown): unknown[] {
  if (!Array.isArray(body)) throw new MalformedCallback('body: is not a JSON array');
  return body;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw new MalformedCallback(`${where}: is not a JSON object`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new MalformedCallback(`${where}: is missing`);
  if (storable(value) !== value) throw new MalformedCallback(`${where}: holds characters that cannot be stored (NUL or a lone surrogate)`);
  return value;
}

/** Text PostgreSQL can hold: NUL removed, a lone UTF-16 surrogate replaced by U+FFFD. */
export function storable(value: string): string {
  return Buffer.from(value.replaceAll('\u0000', ''), 'utf8').toString('utf8');
}

/** A string or number id. */
function id(value: unknown, where: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return text(value, where);
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? storable(value) : null;
}

/** The latest time PostgreSQL and ISO 8601 (four-digit years) both hold. */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

function clip(value: string | null, length: number): string | null {
  return value === null ? null : value.slice(0, length);
}

/** Provider event ids as stored: as given when they fit the column, else a digest of them. */
function eventId(value: string): string {
  return value.length <= 200 ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

const ADDRESS = /^[^\s@]+@[^\s@]+$/;

function address(value: unknown, where: string): string {
  const email = text(value, where).trim();
  if (email.length > 254 || !ADDRESS.test(email)) throw new MalformedCallback(`${where}: is not an e-mail address`);
  return email;
}

/** Unix seconds (possibly fractional, possibly a numeric string) as ISO; null when absent. */
function unixTime(value: unknown, where: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  const date = typeof seconds === 'number' ? new Date(seconds * 1000) : null;
  if (!date || Number.isNaN(date.getTime()) || date.getTime() < 0 || date.getTime() > LATEST) throw new MalformedCallback(`${where}: is not a Unix time`);
  return date.toISOString();
}

/** The meeting provider's event_ts, Unix milliseconds as a number or a string of digits, as given; null when absent. */
function unixMillis(value: unknown, where: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if ((typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^\d{1,16}$/.test(value))) return String(value);
  throw new MalformedCallback(`${where}: is not a Unix time in milliseconds`);
}

function isoTime(value: unknown, where: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  const date = typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime()) || date.getTime() < Date.UTC(1, 0, 1) || date.getTime() > LATEST) throw new MalformedCallback(`${where}: is not an ISO 8601 time`);
  return date.toISOString();
}
