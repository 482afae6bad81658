import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An event of a callback that could not be recorded; the other events of the callback were.' })
export class ParkedCallbackEvent {
  @Field(() => String, { description: 'Which event (e.g. "event 3").' }) Event!: string;
  @Field(() => String, { description: 'Why it could not be recorded.' }) Reason!: string;
}

@ObjectType({ description: 'An inbound provider callback as stored, with its processing state (staff observability).' })
export class ProviderCallbackItem {
  @Field(() => Int) CallbackId!: number;
  @Field(() => String, { description: 'The id the processing job carries.' }) Receipt!: string;
  @Field(() => String, { description: 'emailprovider1-4 or meetingprovider.' }) Provider!: string;
  @Field(() => String, { description: 'When it was stored (ISO 8601).' }) ReceivedAt!: string;
  @Field(() => String, { description: 'queued, retrying, processed, parked (its content cannot be recorded: not retried, the reason in Error) or dead (every attempt failed; `npm run cli -- callbacks requeue` queues it again).' }) State!: string;
  @Field(() => Int, { description: 'Processing attempts since it was (re)queued.' }) Attempts!: number;
  @Field(() => String, { nullable: true, description: 'The last processing error; null once processed.' }) Error!: string | null;
  @Field(() => String, { nullable: true }) ProcessedAt!: string | null;
  @Field(() => Int, { nullable: true, description: 'Events recognized in it (duplicates of recorded events included).' }) EventCount!: number | null;
  @Field(() => [ParkedCallbackEvent], { description: 'Events set aside because they cannot be recorded (a field missing or unstorable).' }) ParkedEvents!: ParkedCallbackEvent[];
}
