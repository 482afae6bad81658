import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import {
  BenefitPackageAddEdit, BenefitPackageAddEditInput, BenefitPackageAssignment, BenefitPackageCollectionItem, BenefitPackageCopy, BenefitPackageCopyInput,
} from '../schema/benefit-packages.js';
import { ListOptionsInput } from '../schema/common.js';
import * as packages from '../services/benefit-packages/benefit-packages.js';

@Resolver()
export class BenefitPackageResolver {
  @Authorized()
  @Query(() => [BenefitPackageCollectionItem], { description: 'The benefit packages, one page at a time (OrderBy Name, BenefitPackageId, ActivePeriodStart, ActivePeriodEnd).' })
  benefitPackages(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return packages.listBenefitPackages(ctx, options);
  }

  @Authorized()
  @Query(() => BenefitPackageAddEdit, { description: 'One benefit package, for editing.' })
  benefitPackage(@Ctx() ctx: RequestContext, @Arg('benefitPackageId', () => Int) benefitPackageId: number) {
    return packages.getBenefitPackage(ctx, benefitPackageId);
  }

  @Authorized('staff')
  @Mutation(() => BenefitPackageCollectionItem, { description: 'Creates (benefitPackageId 0) or updates a package; a likely duplicate name is 409 unless ForceSave.' })
  saveBenefitPackage(@Ctx() ctx: RequestContext, @Arg('benefitPackageId', () => Int) benefitPackageId: number, @Arg('input', () => BenefitPackageAddEditInput) input: BenefitPackageAddEditInput) {
    return packages.saveBenefitPackage(ctx, benefitPackageId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a package that no membership type or level uses (409 otherwise); answers its id.' })
  deleteBenefitPackage(
    @Ctx() ctx: RequestContext,
    @Arg('benefitPackageId', () => Int) benefitPackageId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the package is still this version.' }) auditId?: number | null,
  ) {
    return packages.deleteBenefitPackage(ctx, benefitPackageId, auditId);
  }

  @Authorized('staff')
  @Query(() => BenefitPackageAssignment, { description: 'The membership types and levels the package is assigned to.' })
  benefitPackageAssignments(@Ctx() ctx: RequestContext, @Arg('benefitPackageId', () => Int) benefitPackageId: number) {
    return packages.benefitPackageAssignments(ctx, benefitPackageId);
  }

  @Authorized('staff')
  @Query(() => BenefitPackageCopy, { description: 'The template for copying a package.' })
  benefitPackageCopyTemplate(@Ctx() ctx: RequestContext, @Arg('benefitPackageId', () => Int) benefitPackageId: number) {
    return packages.benefitPackageCopyTemplate(ctx, benefitPackageId);
  }

  @Authorized('staff')
  @Mutation(() => BenefitPackageCollectionItem, { description: 'Creates the copy of a package from its (edited) copy template.' })
  copyBenefitPackage(@Ctx() ctx: RequestContext, @Arg('benefitPackageId', () => Int) benefitPackageId: number, @Arg('input', () => BenefitPackageCopyInput) input: BenefitPackageCopyInput) {
    return packages.copyBenefitPackage(ctx, benefitPackageId, input);
  }
}
