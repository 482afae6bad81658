import { IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { FilterBaseInput } from './common.js';

// The audit trail is not a documented REST model: GraphQL only (staff).

/** Filter text is one line: no control characters (PostgreSQL refuses NUL). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;

@ObjectType({ description: 'One change to one record, as the audit trail recorded it in the transaction of the change (GraphQL only, staff).' })
export class AuditTrailEntry {
  @Field(() => Float, { description: 'Counts up in the order changes were written.' }) AuditEntryId!: number;
  @Field(() => String, { description: 'When the change\'s transaction ran (ISO 8601, UTC).' }) OccurredAt!: string;
  @Field(() => String, { description: 'The table of the changed record (e.g. vendor, contact, credential).' }) TableName!: string;
  @Field(() => Float, { nullable: true, description: 'The changed record\'s id.' }) RecordId!: number | null;
  @Field(() => String, { description: 'insert, update or delete.' }) Action!: string;
  @Field(() => String, { description: 'The GraphQL field(s) (saveVendor), the documented REST operation (POST /api/vendors), the background job (billing-run), or system (the command line, migrations).' }) Operation!: string;
  @Field(() => Int, { nullable: true, description: 'The login that made the change; null for an anonymous caller or background work.' }) ActorLoginId!: number | null;
  @Field(() => String, { nullable: true, description: 'That login\'s sign-in name (email) at the time.' }) ActorLogin!: string | null;
  @Field(() => Int, { nullable: true, description: 'The credential used: a session or an API key.' }) ActorCredentialId!: number | null;
  @Field(() => String, { nullable: true, description: 'session or api_key.' }) ActorCredentialKind!: string | null;
  @Field(() => String, { nullable: true, description: 'The caller\'s role(s): staff, member, partner.' }) ActorRole!: string | null;
  @Field(() => String, { nullable: true, description: 'The x-request-id of the request.' }) RequestId!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The changed columns as they were (updates, deletes); secrets (password, token, secret, hash, salt columns) as "[redacted]".' }) Before!: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The changed columns as they became (inserts, updates); secrets as "[redacted]".' }) After!: Record<string, unknown> | null;
}

@InputType({
  description: 'Which audit entries to list, newest first: FilterBase paging (OrderBy AuditEntryId, OccurredAt, TableName, Operation, ActorLogin), ' +
    'CalendarStartDate/CalendarEndDate bound OccurredAt (a date includes its whole day; a date-time is exact), Filter matches table, operation and login; ' +
    'and exact matches on the fields below.',
})
export class AuditTrailFilterInput extends FilterBaseInput {
  @Field(() => String, { nullable: true, description: 'The table (entity) of the changed records, e.g. vendor.' })
  @IsOptional() @IsString() @Length(1, 63) @Matches(/^[a-z_][a-z0-9_]*$/, { message: 'must be a table name (lower case letters, digits and _)' })
  TableName?: string | null;

  @Field(() => Int, { nullable: true, description: 'The changed record\'s id (with TableName: one record\'s history).' })
  @IsOptional() @IsInt() @Min(1) @Max(2147483647)
  RecordId?: number | null;

  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) @Max(2147483647)
  ActorLoginId?: number | null;

  @Field(() => String, { nullable: true, description: 'The sign-in name (email) of the login, ignoring case.' })
  @IsOptional() @IsString() @Length(1, 254) @Matches(SINGLE_LINE, { message: 'must not contain control characters' })
  ActorLogin?: string | null;

  @Field(() => String, { nullable: true, description: 'The operation, exactly as listed (saveVendor, POST /api/vendors, system).' })
  @IsOptional() @IsString() @Length(1, 300) @Matches(SINGLE_LINE, { message: 'must not contain control characters' })
  Operation?: string | null;

  @Field(() => String, { nullable: true, description: 'insert, update or delete.' })
  @IsOptional() @Matches(/^(insert|update|delete)$/, { message: 'must be insert, update or delete' })
  Action?: string | null;
}
