import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { RuledArg } from '../core/argument-rules.js';
import { CategoryType, type CategoryTypeId } from '../entities/category-list.js';
import { CATEGORY_TYPE_RULE, CategoryListAddEdit, CategoryListAddEditInput, CategoryListCollectionItem, CategoryListResult, SALES_LISTS_ONLY } from '../schema/category-lists.js';
import { alsoKeeping } from '../core/requests/graphql-policies.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import * as lists from '../services/category-lists/category-lists.js';

@Resolver()
export class CategoryListResolver {
  @Authorized('staff')
  @Query(() => CategoryListResult, { description: 'The category lists, one page, with the count of all matching ones.' })
  categoryLists(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return lists.listCategoryLists(ctx, options);
  }

  @Authorized('staff')
  @Query(() => CategoryListAddEdit, { description: 'One category list with its items, for editing (auditId 0: any version; another number must be current, 409 otherwise).' })
  categoryList(@Ctx() ctx: RequestContext, @Arg('categoryListId', () => Int) categoryListId: number, @Arg('auditId', () => Int) auditId: number) {
    return lists.getCategoryList(ctx, categoryListId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => CategoryListCollectionItem, { description: 'Creates (categoryListId 0) or updates a category list and its items; a system list cannot be renamed (409).' })
  saveCategoryList(@Ctx() ctx: RequestContext, @Arg('categoryListId', () => Int) categoryListId: number, @Arg('input', () => CategoryListAddEditInput) input: CategoryListAddEditInput) {
    return lists.saveCategoryList(ctx, categoryListId, input);
  }

  @Authorized('staff')
  @Mutation(() => CategoryListCollectionItem, { description: 'Creates or updates a sales opportunity category list (type 6, Sales); a list of another type is not found here.' })
  saveSalesCategoryList(
    @Ctx() ctx: RequestContext, @Arg('categoryListId', () => Int) categoryListId: number,
    @Arg('input', () => CategoryListAddEditInput, alsoKeeping(SALES_LISTS_ONLY)) input: CategoryListAddEditInput,
  ) {
    return lists.saveCategoryList(ctx, categoryListId, input, CategoryType.Sales);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a category list and its items at the given AuditId (409 when stale, or for a system list); answers its id.' })
  deleteCategoryList(@Ctx() ctx: RequestContext, @Arg('categoryListId', () => Int) categoryListId: number, @Arg('auditId', () => Int) auditId: number) {
    return lists.deleteCategoryList(ctx, categoryListId, auditId);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'The category types: Id and Name; ExtraData the kind of record their items are given to.' })
  categoryTypeLookup() {
    return lists.categoryTypeLookup();
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'The category lists of one type (number or name); only those with items unless showEmptyLists.' })
  categoryListLookup(@Ctx() ctx: RequestContext, @RuledArg('categoryTypeId', CATEGORY_TYPE_RULE) categoryTypeId: CategoryTypeId, @Arg('showEmptyLists', () => Boolean) showEmptyLists: boolean) {
    return lists.categoryListLookup(ctx, categoryTypeId, showEmptyLists);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'The active lists of a type that items can be moved to; exceptCategoryListId (our addition) leaves out the list they are in.' })
  categoryListReassignLookup(
    @Ctx() ctx: RequestContext,
    @RuledArg('categoryTypeId', CATEGORY_TYPE_RULE) categoryTypeId: CategoryTypeId,
    @Arg('exceptCategoryListId', () => Int, { nullable: true }) exceptCategoryListId?: number | null,
  ) {
    return lists.reassignCategoryListLookup(ctx, categoryTypeId, exceptCategoryListId);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active contact category items (ExtraData: the list). Callers who are not staff see only public or member-viewable lists.' })
  contactCategoryItemLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.Contact);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active public contact category items: of the public contact lists and of contact lists marked public.' })
  publicContactCategoryItemLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.PublicContact);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active product (store) category items.' })
  productCategoryItemLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.Product);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active project category items.' })
  projectCategoryItemLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.Project);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active certification category items.' })
  certificationCategoryItemLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.Certification);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active sales opportunity category items (ExtraData: the list).' })
  salesCategoryLookup(@Ctx() ctx: RequestContext) {
    return lists.categoryItemLookup(ctx, CategoryType.Sales);
  }
}
