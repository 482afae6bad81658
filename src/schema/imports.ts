import { ArrayMaxSize, IsIn, IsOptional, Length, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

/* Contact imports and the contact export (our extension; services/imports). */

@ObjectType({ description: 'A column of the file and the field it fills (Field null or empty: not imported).' })
@InputType('ImportColumnMappingInput')
export class ImportColumnMapping {
  @Field(() => String) @Length(0, 500) Column!: string;
  @Field(() => String, { nullable: true, description: 'One of the import fields (ContactId, ExternalId, Kind, NationalID, FirstName, …) or cf:<custom field key>.' })
  @IsOptional() @MaxLength(100) Field!: string | null;
}

@ObjectType({ description: 'A contact import: its file, state and counts.' })
export class ImportStatus {
  @Field(() => Int) ImportId!: number;
  @Field(() => String) FileName!: string;
  @Field(() => String, { description: 'uploaded, queued, running, completed, cancelled or failed.' }) State!: string;
  @Field(() => Boolean, { description: 'Whether the last run started was a dry run (nothing written, every row\'s outcome kept).' }) DryRun!: boolean;
  @Field(() => Int, { description: 'Data rows of the file.' }) RowsTotal!: number;
  @Field(() => Int, { description: 'Rows settled so far by the run (its checkpoint).' }) RowsDone!: number;
  @Field(() => Int, { description: 'Percent done, 0 to 100.' }) Progress!: number;
  @Field(() => Int) Created!: number;
  @Field(() => Int) Updated!: number;
  @Field(() => Int) Unchanged!: number;
  @Field(() => Int) Rejected!: number;
  @Field(() => String, { nullable: true }) Error!: string | null;
  @Field(() => String, { nullable: true, description: 'What the run matches rows on: ContactId, ExternalId, NationalID or Email.' }) MatchOn!: string | null;
  @Field(() => [ImportColumnMapping], { nullable: true }) Mapping!: ImportColumnMapping[] | null;
  @Field(() => String) CreatedAt!: string;
  @Field(() => String, { nullable: true }) FinishedAt!: string | null;
}

@ObjectType({ description: 'What an uploaded file holds and how its columns would be read.' })
export class ImportPreview {
  @Field(() => Int) ImportId!: number;
  @Field(() => String, { description: ', or ;' }) Delimiter!: string;
  @Field(() => [String]) Headers!: string[];
  @Field(() => [[String]], { description: 'The first rows as read.' }) Rows!: string[][];
  @Field(() => Int) RowsTotal!: number;
  @Field(() => [ImportColumnMapping], { description: 'By header: our own export\'s, custom fields\' (cf:<key> or label), and common ones of Wild Apricot, CiviCRM and GrowthZone.' })
  SuggestedMapping!: ImportColumnMapping[];
  @Field(() => String) SuggestedMatchOn!: string;
  @Field(() => [String], { description: 'Every field a column may map to.' }) Fields!: string[];
  @Field(() => [String]) MatchKeys!: string[];
}

@InputType('ContactImportStartInput', { description: 'How to run an uploaded file. Without Mapping, the suggested mapping.' })
export class ContactImportStartInput {
  @Field(() => Boolean, { nullable: true, description: 'true: report every row\'s outcome and write nothing.' }) @IsOptional() DryRun?: boolean | null;
  @Field(() => String, { nullable: true, description: 'ContactId, ExternalId, NationalID or Email (default: the first of them that is mapped).' })
  @IsOptional() @IsIn(['ContactId', 'ExternalId', 'NationalID', 'Email']) MatchOn?: string | null;
  @Field(() => [ImportColumnMapping], { nullable: true }) @IsOptional() @ArrayMaxSize(200) @ValidateNested({ each: true })
  Mapping?: ImportColumnMapping[] | null;
}

@InputType('ContactImportRowsInput', { description: 'Which row outcomes to list (default: the last run\'s, all outcomes, the first 100).' })
export class ContactImportRowsInput {
  @Field(() => Boolean, { nullable: true }) @IsOptional() DryRun?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsIn(['created', 'updated', 'unchanged', 'rejected']) Outcome?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(10_000_000) Skip?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) @Max(1000) Take?: number | null;
}

@ObjectType()
export class ImportRowResult {
  @Field(() => Int, { description: '1 is the first data row (the header row not counted).' }) RowNumber!: number;
  @Field(() => String, { description: 'created, updated, unchanged or rejected.' }) Outcome!: string;
  @Field(() => String, { nullable: true, description: 'Why a row was rejected: "<column field>: <reason>".' }) Reason!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'The contact the row created, updated or left unchanged. Null for a rejected row, and in a dry run for a contact the import would create: a dry run keeps no contact, so it has no id.',
  }) ContactId!: number | null;
}

@ObjectType()
export class ImportRowResults {
  @Field(() => Int) Total!: number;
  @Field(() => [ImportRowResult]) Results!: ImportRowResult[];
}

@ObjectType({ description: 'A CSV to download from Url with the same credential (streamed; its size has no limit, so GraphQL does not carry it).' })
export class ImportDownload {
  @Field(() => String) FileName!: string;
  @Field(() => String) MediaType!: string;
  @Field(() => String) Url!: string;
}
