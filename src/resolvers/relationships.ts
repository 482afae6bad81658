import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import { ContactRelationshipInput, ContactRelationshipModel } from '../schema/relationships.js';
import * as relationships from '../services/relationships/relationships.js';

@Resolver()
export class RelationshipResolver {
  @Authorized('staff')
  @Query(() => [ContactRelationshipModel], { description: 'The contact\'s relationships: a person\'s organizations, or an organization\'s people. OrderBy RelationshipId, Role, IsPrimary.' })
  contactRelationships(
    @Ctx() ctx: RequestContext,
    @Arg('contactId', () => Int) contactId: number,
    @Arg('options', () => ListOptionsInput, { nullable: true, description: 'Paging and ordering (Skip, Take: default 100, at most 1000); Filter searches the role.' }) options?: ListOptionsInput | null,
  ) {
    return relationships.listContactRelationships(ctx, contactId, options);
  }

  @Authorized('staff')
  @Mutation(() => ContactRelationshipModel, { description: 'Creates (relationshipId 0) or changes a relationship of the contact; IsPrimary true demotes the organization\'s previous primary contact.' })
  saveContactRelationship(
    @Ctx() ctx: RequestContext,
    @Arg('contactId', () => Int) contactId: number,
    @Arg('relationshipId', () => Int) relationshipId: number,
    @Arg('input', () => ContactRelationshipInput) input: ContactRelationshipInput,
  ) {
    return relationships.saveContactRelationship(ctx, contactId, relationshipId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a relationship of the contact; answers its id.' })
  deleteContactRelationship(
    @Ctx() ctx: RequestContext,
    @Arg('contactId', () => Int) contactId: number,
    @Arg('relationshipId', () => Int) relationshipId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the relationship is still this version.' }) auditId?: number | null,
  ) {
    return relationships.deleteContactRelationship(ctx, contactId, relationshipId, auditId);
  }
}
