import { ArrayMaxSize, IsOptional, Length, Matches, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { AcrossFields, Conforms, notLessThan, readsAs, type ArgumentRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';
import { CATEGORY_TYPES, CategoryType, type CategoryTypeId } from '../entities/category-list.js';
import { ListResultType } from './common.js';

/** A category type by number or name: the document lists the numbers and names (any case, spaces optional). */
export const CATEGORY_TYPE_RULE: ArgumentRule<CategoryTypeId> = {
  schema: {
    type: 'string', enum: [...CATEGORY_TYPES.map((type) => String(type.id)), ...CATEGORY_TYPES.map((type) => type.name)],
    description: `A category type by number or name (any case): ${CATEGORY_TYPES.map((type) => `${type.id} ${type.name}`).join(', ')}.`,
  },
  parse(value, field) {
    const text = value.trim().toLowerCase().replace(/[\s_-]+/g, '');
    const type = CATEGORY_TYPES.find((candidate) => String(candidate.id) === text || candidate.name.toLowerCase().replace(/\s+/g, '') === text);
    if (!type) throw BadInput.field(field, `must be one of ${CATEGORY_TYPES.map((candidate) => `${candidate.id} (${candidate.name})`).join(', ')}`);
    return type.id;
  },
};

const QUANTITY = /^\s*\d{1,4}\s*$/;

@ObjectType('CategoryListItem', { description: 'One category of a category list (what records are given).' })
export class CategoryListItem {
  @Field(() => Int) CategoryItemId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean, { description: 'An inactive item stays on the records that have it but is no longer offered in lookups.' }) IsActive!: boolean;
  @Field(() => Int, { description: 'Position within the list (the order Items were sent in).' }) SortOrder!: number;
}

@InputType('CategoryListItemInput', {
  description: 'One category of the list: CategoryItemId 0 or absent adds it; the id of an item of another list of the same type moves it here (see lookup/reassigncategorylist).',
})
export class CategoryListItemInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) CategoryItemId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 2000) Description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) IsActive?: boolean | null;
}

@ObjectType('CategoryListAddEdit', { description: 'A category list as read for editing, with its items (Items is our addition: the documents list the fields of the list only).' })
export class CategoryListAddEdit {
  @Field(() => Int) CategoryListId!: number;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
  @Field(() => Boolean, { description: 'A system list (every tenant has it) cannot be deleted or renamed.' }) IsSystem!: boolean;
  @Field(() => String, { description: 'The category type as a number in a string ("1" Contact … "6" Sales; lookup/categorytypeid lists them).' }) CategoryTypeId!: string;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Boolean) IsPublic!: boolean;
  @Field(() => Boolean) IsMemberViewable!: boolean;
  @Field(() => Boolean) IsMemberEditable!: boolean;
  @Field(() => Boolean) IsRequired!: boolean;
  @Field(() => String, { nullable: true, description: 'Fewest items a record must have from this list (a string of digits; null: no minimum).' }) MinQuantity!: string | null;
  @Field(() => String, { nullable: true, description: 'Most items a record may have from this list (a string of digits; null: no maximum).' }) MaxQuantity!: string | null;
  @Field(() => [CategoryListItem]) Items!: CategoryListItem[];
}

@AcrossFields<CategoryListAddEditInput>(notLessThan('MaxQuantity', 'MinQuantity'))
@InputType('CategoryListAddEditInput', {
  description: 'A category list to create or update (the path id wins over CategoryListId). IsSystem is server-owned and ignored. Items absent: the items stay as they are; present: the list holds exactly these, in this order.',
})
export class CategoryListAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) CategoryListId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the list; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) IsSystem?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Required for a new list: the type number ("1") or name ("Contact"); an existing list keeps its type.' })
  @IsOptional() @Conforms(CATEGORY_TYPE_RULE) CategoryTypeId?: string | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) IsActive?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsPublic?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsMemberViewable?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsMemberEditable?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsRequired?: boolean | null;
  @Field(() => String, { nullable: true, description: 'A whole number 0–9999 as a string; empty or null: no minimum.' })
  @IsOptional() @Matches(QUANTITY, { message: 'MinQuantity must be a whole number from 0 to 9999' }) MinQuantity?: string | null;
  @Field(() => String, { nullable: true, description: 'A whole number 0–9999 as a string; empty or null: no maximum.' })
  @IsOptional() @Matches(QUANTITY, { message: 'MaxQuantity must be a whole number from 0 to 9999' }) MaxQuantity?: string | null;
  @Field(() => [CategoryListItemInput], { nullable: true }) @IsOptional() @ArrayMaxSize(500) @ValidateNested({ each: true }) Items?: CategoryListItemInput[] | null;
}

@ObjectType('CategoryListCollectionItem', { description: 'A category list as listed.' })
export class CategoryListCollectionItem {
  @Field(() => Int, { description: 'The same as CategoryListId.' }) Id!: number;
  @Field(() => Int) CategoryListId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => Boolean) IsSystem!: boolean;
  @Field(() => String) CategoryTypeId!: string;
  @Field(() => String) CategoryTypeName!: string;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean) IsPublic!: boolean;
  @Field(() => String, { description: 'The same number as CategoryTypeId.' }) ObjectTypeId!: string;
  @Field(() => String, { description: 'The kind of record the items are given to: Contact, StoreItem, Project, Certification, SalesOpportunity.' }) ObjectType!: string;
  @Field(() => Int) ItemsCount!: number;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
  @Field(() => Boolean, { description: 'True unless the caller is staff.' }) IsReadOnly!: boolean;
  @Field(() => Boolean, { description: 'True for a system list (it cannot be deleted) and for callers who are not staff.' }) HideDelete!: boolean;
  @Field(() => Boolean) IsStaff!: boolean;
  @Field(() => Int, { description: 'How many lists match the list filter over all pages (the same on every row; 1 after a save).' }) TotalRecordAvailable!: number;
}

@ObjectType('CategoryListCriteria', { description: 'The criteria of the category list list: none besides the options (Criteria is always null).' })
export class CategoryListCriteria {
  @Field(() => String, { nullable: true }) CategoryTypeId!: string | null;
}

export const CategoryListResult = ListResultType('CategoryListResult', {
  description: 'ListResult of category lists (GET /api/categorylists/all): Results one page, TotalRecordAvailable all matching lists. OrderBy Name (default), CategoryListId, CategoryTypeId; Filter matches Name and Description.',
  item: CategoryListCollectionItem,
  criteria: CategoryListCriteria,
  criteriaItemsDescription: 'The category types (Id, Name).',
  modelItemsDescription: 'Empty.',
});

/** The sales category save confines the shared input to sales lists: a CategoryTypeId given must name type 6. */
export const SALES_LISTS_ONLY = readsAs<CategoryListAddEditInput, CategoryTypeId>('CategoryTypeId', CATEGORY_TYPE_RULE, CategoryType.Sales, `must be ${CategoryType.Sales} (Sales) here`);
