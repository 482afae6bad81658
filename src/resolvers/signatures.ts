import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { MAX_PAGE_SIZE } from '../core/data/list-query.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import { ManageSignatures, SignatureAddEdit, SignatureAddEditInput, SignatureCollectionItem } from '../schema/signatures.js';
import * as signatures from '../services/signatures/signatures.js';

/**
 * E-mail signatures. Any signed-in login manages its own; staff manage every signature of the
 * tenant. Someone else's signature is 404 to a member (see services/signatures/signatures.ts).
 */
@Resolver()
export class SignatureResolver {
  @Authorized()
  @Query(() => [SignatureCollectionItem], { description: 'Signatures, one page at a time: every signature of the tenant for staff, their own for members.' })
  signatures(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return signatures.listSignatures(ctx, options);
  }

  @Authorized()
  @Query(() => [SignatureAddEdit], { description: `The caller's own signatures, by name (at most ${MAX_PAGE_SIZE}).` })
  currentUserSignatures(@Ctx() ctx: RequestContext) {
    return signatures.currentUserSignatures(ctx);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: `The caller's own signatures as lookup choices, by name (at most ${MAX_PAGE_SIZE}).` })
  signatureLookup(@Ctx() ctx: RequestContext) {
    return signatures.signatureLookup(ctx);
  }

  @Authorized()
  @Query(() => ManageSignatures, { description: "The caller's own signatures, for the manage-signatures dialog." })
  manageSignatureDialog(@Ctx() ctx: RequestContext) {
    return signatures.manageSignatureDialog(ctx);
  }

  @Authorized()
  @Query(() => SignatureAddEdit, { description: 'One signature, for editing (staff: any of the tenant; members: their own).' })
  signature(@Ctx() ctx: RequestContext, @Arg('signatureId', () => Int) signatureId: number) {
    return signatures.getSignature(ctx, signatureId);
  }

  @Authorized()
  @Mutation(() => SignatureCollectionItem, { description: 'Creates (signatureId 0) or updates a signature; its HTML is sanitized.' })
  saveSignature(
    @Ctx() ctx: RequestContext,
    @Arg('signatureId', () => Int, { description: '0 creates; the id of an existing signature updates it.' }) signatureId: number,
    @Arg('input', () => SignatureAddEditInput) input: SignatureAddEditInput,
  ) {
    return signatures.saveSignature(ctx, signatureId, input);
  }

  @Authorized()
  @Mutation(() => Int, { description: 'Deletes a signature; answers its id (REST: 200 with an empty body).' })
  deleteSignature(@Ctx() ctx: RequestContext, @Arg('signatureId', () => Int) signatureId: number) {
    return signatures.deleteSignature(ctx, signatureId);
  }
}
