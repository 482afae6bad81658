import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { Field, InputType, Int, ObjectType, type ClassType } from 'type-graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/data/list-query.js';

/** A record whose name duplicates the one being checked (documented model PotentialDuplicateEntry). */
@ObjectType({ description: 'A record whose name duplicates the given name.' })
export class PotentialDuplicateEntry {
  @Field(() => Int)
  Id!: number;

  @Field(() => String, { nullable: true })
  Name!: string | null;

  @Field(() => String, { nullable: true })
  Description!: string | null;
}

/** The documented LookupChoiceInt: one choice of a lookup list. */
@ObjectType({ description: 'One choice of a lookup list.' })
export class LookupChoiceInt {
  @Field(() => Int)
  Id!: number;

  @Field(() => String, { nullable: true })
  Name!: string | null;

  @Field(() => String, { nullable: true })
  ExtraData!: string | null;

  @Field(() => String, { nullable: true })
  CssColor!: string | null;

  @Field(() => Boolean)
  IsSelected!: boolean;

  @Field(() => Boolean)
  IsDeleted!: boolean;

  @Field(() => Int)
  Order!: number;
}

/** Rows with an id and a name as the choices of a lookup list, in the given order (`Order` counts on from `firstOrder`: a page's Skip). */
export function lookupChoices(rows: readonly { id: number; name: string | null; extraData?: string | null; selected?: boolean }[], firstOrder = 0): LookupChoiceInt[] {
  return rows.map((row, index) => ({
    Id: row.id, Name: row.name, ExtraData: row.extraData ?? null, CssColor: null, IsSelected: row.selected ?? false, IsDeleted: false, Order: firstOrder + index,
  }));
}

/** The actions the caller may take on a row of a staff list (the documented `Actions`). */
export function rowActions(isStaff: boolean): readonly string[] {
  // One array each, shared by every row (a list of 100 allocates none); read-only by type, not
  // frozen: graphql-jit walks a frozen array through V8's generic iterator, which doubled the
  // garbage of each row's Actions (BENCHMARKS.md, "garbage per list row").
  return isStaff ? STAFF_ROW_ACTIONS : NO_ROW_ACTIONS;
}

/**
 * Rows read in their model's shape (`listQuery` with the model's keys) given their Actions, in
 * place: a list answers the rows it read, with no copy of its own per row.
 */
export function withRowActions<Row extends object>(isStaff: boolean, rows: Row[]): (Row & { Actions: readonly string[] })[] {
  const actions = rowActions(isStaff);
  for (const row of rows as (Row & { Actions: readonly string[] })[]) row.Actions = actions;
  return rows as (Row & { Actions: readonly string[] })[];
}

const STAFF_ROW_ACTIONS: readonly string[] = ['Edit', 'Delete'];
const NO_ROW_ACTIONS: readonly string[] = [];

/**
 * A FilterBase count (`Top`, `Take`, `Skip`), documented as str: a string of digits. A JSON number
 * is accepted too, as ASP.NET model binding accepted it; `parseListOptions` checks the value.
 */
export const FilterCount = new GraphQLScalarType({
  name: 'FilterCount',
  description: 'A count documented as str ("25"); a JSON number (25) is accepted too.',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    // A GraphQLError (not a TypeError) so that it is reported as bad input naming the field.
    throw new GraphQLError('must be a string of digits or an integer');
  },
  parseLiteral: (node) => {
    // undefined: GraphQL reports 'Expected value of type "FilterCount", found …' as bad input.
    return node.kind === Kind.STRING || node.kind === Kind.INT ? node.value : undefined;
  },
});

/**
 * The documented FilterBase. A list's filter model (`UserTermsAcceptanceFilter`,
 * `ReportAdvancedFilter`, ...) extends this with its own fields and serves both the GET `options`
 * and the POST body of the list; `listQuery` (or `parseListOptions(filter, spec, '')`) checks the
 * FilterBase values and names the documented field in a 400.
 */
@InputType('FilterBaseInput', { description: 'The documented FilterBase (paging, ordering, text filter, dates).' })
export abstract class FilterBaseInput {
  @Field(() => FilterCount, { nullable: true, description: 'Alias of Take.' }) Top?: string | null;
  @Field(() => FilterCount, { nullable: true, description: 'Page size.' }) Take?: string | null;
  @Field(() => FilterCount, { nullable: true, description: 'Rows to skip.' }) Skip?: string | null;
  @Field(() => String, { nullable: true, description: 'Case-insensitive text match.' }) Filter?: string | null;
  @Field(() => String, { nullable: true, description: '"Field" or "Field desc", documented field names only.' }) OrderBy?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 date: only records on or after it (lists with dates).' }) CalendarStartDate?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 date: only records on or before it (lists with dates).' }) CalendarEndDate?: string | null;
}

/**
 * The `options` of a list: the FilterBase fields as a typed input (REST: the `options` query
 * parameter, URL-encoded JSON of the same fields). A list with criteria of its own declares its
 * own input extending FilterBaseInput instead.
 */
@InputType('ListOptions', {
  description: `Paging, ordering and a text filter: Skip, Take (alias Top; default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}), ` +
    'Filter (case-insensitive text match), OrderBy ("Name" or "Name desc"), CalendarStartDate, CalendarEndDate.',
})
export class ListOptionsInput extends FilterBaseInput {}

/** The documented ListResult: one page of a list, with the count of all matching records. */
export interface ListResultOf<TItem, TCriteria, TCriteriaItem = LookupChoiceInt, TModelItem = LookupChoiceInt> {
  Criteria: TCriteria | null;
  CriteriaItems: TCriteriaItem[];
  TotalRecordAvailable: string;
  ModelItems: TModelItem[];
  Results: TItem[];
}

export interface ListResultTypeOptions {
  description: string;
  /** The list's rows (`Results`). */
  item: ClassType;
  /** The list's own criteria, echoed back as applied (`Criteria`). */
  criteria: ClassType;
  /** The choices the criteria can take (`CriteriaItems`); LookupChoiceInt unless given. */
  criteriaItem?: ClassType;
  criteriaItemsDescription?: string;
  /** Records the rows refer to (`ModelItems`); LookupChoiceInt unless given. */
  modelItem?: ClassType;
  modelItemsDescription?: string;
}

/**
 * The GraphQL type of a documented ListResult for one list, named `name` (each list has its own
 * row type, so each gets its own type). The documents type every field str; the compound ones are
 * typed JSON here (CONVENTIONS), and TotalRecordAvailable stays a string of digits ("57"), the
 * number of records matching the list's filter over all pages, not just this page.
 */
export function ListResultType(name: string, options: ListResultTypeOptions): ClassType {
  @ObjectType(name, { description: options.description })
  class ListResult {
    @Field(() => options.criteria, { nullable: true, description: 'The criteria the list was read with, as applied (null: none).' })
    Criteria!: unknown;

    @Field(() => [options.criteriaItem ?? LookupChoiceInt], { description: options.criteriaItemsDescription ?? 'The choices the criteria can take.' })
    CriteriaItems!: unknown[];

    @Field(() => String, { description: 'How many records match over all pages, as a string of digits (documented str).' })
    TotalRecordAvailable!: string;

    @Field(() => [options.modelItem ?? LookupChoiceInt], { description: options.modelItemsDescription ?? 'Records the results refer to.' })
    ModelItems!: unknown[];

    @Field(() => [options.item], { description: 'This page of the list (Skip/Take).' })
    Results!: unknown[];
  }
  Object.defineProperty(ListResult, 'name', { value: name });
  return ListResult;
}

/** A ListResult value; `total` is the count of all matching records (not the page). */
export function listResult<TItem, TCriteria, TCriteriaItem = LookupChoiceInt, TModelItem = LookupChoiceInt>(value: {
  criteria: TCriteria | null;
  criteriaItems?: TCriteriaItem[];
  total: number;
  modelItems?: TModelItem[];
  results: TItem[];
}): ListResultOf<TItem, TCriteria, TCriteriaItem, TModelItem> {
  return {
    Criteria: value.criteria,
    CriteriaItems: value.criteriaItems ?? [],
    TotalRecordAvailable: String(value.total),
    ModelItems: value.modelItems ?? [],
    Results: value.results,
  };
}
