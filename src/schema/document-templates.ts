import { IsOptional, Length, Matches, Min } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A document generation template as listed.' })
export class DocumentGenerationTemplateCollectionItem {
  @Field(() => Int) DocumentGenerationTemplateId!: number;
  @Field(() => String, { description: 'The document generation type (lookup key, e.g. "invoices", "certificatecomponent").' }) DocumentGenerationTypeId!: string;
  @Field(() => Int) AuditId!: number;
  @Field(() => String, { description: 'The name of the document generation type.' }) TemplateType!: string;
  @Field(() => String) Name!: string;
  @Field(() => Boolean, { description: 'Whether the caller may edit the template.' }) AllowEdit!: boolean;
  @Field(() => String, { nullable: true, description: 'The template file (a FileId, as a string); null when none is attached.' }) FileId!: string | null;
  @Field(() => String, { nullable: true }) FileName!: string | null;
  @Field(() => String, { nullable: true, description: 'Where the template file is downloaded (GET, the DOCX bytes).' }) FileEditUrl!: string | null;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}

@ObjectType({ description: 'The document generation templates, with how to write one.' })
export class DocumentGenerationTemplates {
  @Field(() => String, { description: 'How a template is written: its merge fields and where they are listed.' }) Instruction!: string;
  @Field(() => [DocumentGenerationTemplateCollectionItem]) Items!: DocumentGenerationTemplateCollectionItem[];
}

@ObjectType({ description: 'A document generation template as read for editing.' })
export class DocumentGenerationTemplateAddEdit {
  @Field(() => Int) DocumentGenerationTemplateId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String) DocumentGenerationTypeId!: string;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) FileId!: string | null;
  @Field(() => Boolean, { description: 'Whether a template file is attached.' }) FileExists!: boolean;
}

@InputType('DocumentGenerationTemplateAddEditInput', {
  description: 'A template to create or update (the path id wins over DocumentGenerationTemplateId). FileId: a file uploaded with uploadDocumentGenerationTemplateFile; required when creating, absent keeps the current file.',
})
export class DocumentGenerationTemplateAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) DocumentGenerationTemplateId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the template; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => String, { description: 'One of the document generation types (documentGenerationTypes).' }) @Length(1, 64) DocumentGenerationTypeId!: string;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(/^\d{1,9}$/, { message: 'FileId must be the id of an uploaded template file' }) FileId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Server-owned; ignored.' }) FileExists?: boolean | null;
}

@ObjectType({ description: 'One merge field: write {Name} in the template.' })
export class DocumentGenerationMergeField {
  @Field(() => String, { description: 'The merge tag, e.g. "Contact.FirstName" (written {Contact.FirstName} in the DOCX).' }) Name!: string;
  @Field(() => String, { description: 'A readable label.' }) Label!: string;
  @Field(() => String, { description: 'The value type: string, number, boolean, date or datetime.' }) Type!: string;
}

@ObjectType({ description: 'The merge fields of one record type (derived from its entity).' })
export class DocumentGenerationMergeFieldGroup {
  @Field(() => String, { description: 'The record type, also the prefix of its merge tags (Contact, Membership, MembershipType, Tenant).' }) GroupName!: string;
  @Field(() => [DocumentGenerationMergeField]) Fields!: DocumentGenerationMergeField[];
}

@ObjectType({ description: 'The merge fields a template of a document generation type can use.' })
export class AvailableMergeFields {
  @Field(() => String) DocumentGenerationTypeId!: string;
  @Field(() => [DocumentGenerationMergeFieldGroup]) AvailableFieldsGroup!: DocumentGenerationMergeFieldGroup[];
}

@ObjectType({ description: 'A document generation type: what templates are for, and which record a document is generated from.' })
export class DocumentGenerationType {
  @Field(() => String) DocumentGenerationTypeId!: string;
  @Field(() => String) Name!: string;
  @Field(() => String, { description: 'The record a document of this type is generated from: Contact or Membership.' }) RecordType!: string;
}

@ObjectType({ description: 'An uploaded template file (GraphQL-only: REST clients send its FileId when saving a template).' })
export class DocumentGenerationTemplateFile {
  @Field(() => String) FileId!: string;
  @Field(() => String) Name!: string;
  @Field(() => String) MediaType!: string;
  @Field(() => Int) Size!: number;
}

@ObjectType({ description: 'A generated document (GraphQL-only): the DOCX, base64-encoded.' })
export class DocumentGenerationGeneratedDocument {
  @Field(() => String) FileName!: string;
  @Field(() => String) MediaType!: string;
  @Field(() => String, { description: 'The DOCX bytes, base64.' }) ContentBase64!: string;
}
