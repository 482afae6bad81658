import { ArrayMinSize, IsIn, IsOptional, Length, Min } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { Conforms, type ArgumentRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';
import { WEBHOOK_EVENT_TYPES } from '../entities/webhook.js';

/**
 * Where a subscription posts: an absolute URL here; whether it may be requested (https, a public
 * address) is the outbound policy's call when it is saved, which OUTBOUND_ALLOW_PRIVATE relaxes,
 * so the document states the strict form: https on a host name.
 */
const WEBHOOK_URL_RULE: ArgumentRule<string> = {
  schema: {
    type: 'string', format: 'uri', maxLength: 2000, pattern: '^https://[A-Za-z][A-Za-z0-9.-]*(:\\d{1,5})?(/\\S*)?$',
    description: 'An https URL on a public address (with OUTBOUND_ALLOW_PRIVATE set, http and private addresses too).',
  },
  parse(text, field) {
    if (text.length > 2000) throw BadInput.field(field, 'must be at most 2000 characters');
    if (!URL.canParse(text)) throw BadInput.field(field, 'must be an absolute URL');
    return text;
  },
};

@ObjectType({ description: 'A tenant\'s webhook subscription: where its events are posted, signed per Standard Webhooks.' })
export class WebhookSubscriptionView {
  @Field(() => Int) WebhookId!: number;
  @Field(() => String) Url!: string;
  @Field(() => [String], { description: `The event types posted to Url, of: ${WEBHOOK_EVENT_TYPES.join(', ')}.` }) EventTypes!: string[];
  @Field(() => Boolean, { description: 'Whether events are posted; false when staff paused it or the deliveries gave up (DisabledReason).' }) Active!: boolean;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true, description: 'Why deliveries disabled the subscription (every retry of a delivery failed, or the receiver answered 410); cleared when it is saved active again.' }) DisabledReason!: string | null;
  @Field(() => String, { nullable: true, description: 'When the deliveries disabled it (ISO 8601).' }) DisabledAt!: string | null;
  @Field(() => String, { nullable: true, description: 'After a secret rotation: until when (ISO 8601) the previous secret signs too.' }) PreviousSecretValidUntil!: string | null;
  @Field(() => String, { nullable: true, description: 'The signing secret (whsec_…): present only in the answer of the save that created the subscription; never shown again.' }) Secret!: string | null;
  @Field(() => String, { description: 'When it was created (ISO 8601).' }) CreatedAt!: string;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
}

@InputType('WebhookSubscriptionInput', { description: 'A webhook subscription to create (WebhookId 0 or absent) or update.' })
export class WebhookSubscriptionInput {
  @Field(() => Int, { nullable: true })
  @IsOptional() @Min(0)
  WebhookId?: number | null;

  @Field(() => String, { description: 'Where events are posted: an https URL on a public address (any http(s) address under OUTBOUND_ALLOW_PRIVATE).' })
  @Conforms(WEBHOOK_URL_RULE)
  Url!: string;

  @Field(() => [String], { description: `Event types to post, at least one, of: ${WEBHOOK_EVENT_TYPES.join(', ')}.` })
  @ArrayMinSize(1, { message: 'EventTypes must name at least one event type' }) @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `EventTypes must each be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  EventTypes!: string[];

  @Field(() => Boolean, { nullable: true, description: 'Whether events are posted (absent: true for a new subscription, unchanged for an existing one). Saving it true again clears DisabledReason and resumes the deliveries still waiting.' })
  Active?: boolean | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @Length(0, 500)
  Description?: string | null;

  @Field(() => Int, { nullable: true, description: 'The AuditId read with the subscription; a stale one is refused with 409.' })
  @IsOptional() @Min(0)
  AuditId?: number | null;
}

@ObjectType({ description: 'A webhook subscription\'s new signing secret, answered once.' })
export class WebhookSecretRotation {
  @Field(() => Int) WebhookId!: number;
  @Field(() => String, { description: 'The new signing secret (whsec_…); never shown again.' }) Secret!: string;
  @Field(() => String, { description: 'Until when (ISO 8601) the previous secret keeps signing beside the new one (both in webhook-signature).' }) PreviousSecretValidUntil!: string;
  @Field(() => Int) AuditId!: number;
}

@ObjectType({ description: 'One event\'s delivery to one subscription, and how it went.' })
export class WebhookDeliveryView {
  @Field(() => Int) DeliveryId!: number;
  @Field(() => Int) WebhookId!: number;
  @Field(() => String, { description: 'The webhook-id header: the same on every attempt, so receivers drop duplicates by it.' }) MessageId!: string;
  @Field(() => String) EventType!: string;
  @Field(() => String, { description: 'pending, queued, retrying, delivered or failed.' }) Status!: string;
  @Field(() => Int) Attempts!: number;
  @Field(() => Int, { nullable: true, description: 'The HTTP status of the last attempt (none: no answer).' }) LastResponseCode!: number | null;
  @Field(() => Int, { nullable: true, description: 'How long the last attempt took, in milliseconds.' }) LatencyMs!: number | null;
  @Field(() => String, { nullable: true }) LastError!: string | null;
  @Field(() => String, { nullable: true, description: 'When the next attempt is due (ISO 8601), while retrying.' }) NextAttemptAt!: string | null;
  @Field(() => String, { nullable: true }) DeliveredAt!: string | null;
  @Field(() => String) CreatedAt!: string;
}
