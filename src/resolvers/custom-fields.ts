import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { RuledArg } from '../core/argument-rules.js';
import type { CustomFieldTarget } from '../entities/custom-field.js';
import { ListOptionsInput } from '../schema/common.js';
import { CustomFieldInput, CustomFieldModel } from '../schema/custom-fields.js';
import * as customFields from '../services/custom-fields/custom-fields.js';

@Resolver()
export class CustomFieldResolver {
  @Authorized('staff')
  @Query(() => [CustomFieldModel], { description: 'The custom field definitions, one page (OrderBy Position (default), Key, Label, CustomFieldId; Filter matches key and label).' })
  customFields(
    @Ctx() ctx: RequestContext,
    @RuledArg('appliesTo', customFields.APPLIES_TO_RULE, { nullable: true, description: 'person, organization or membership; absent: all.' }) appliesTo: CustomFieldTarget | null,
    @Arg('includeRetired', () => Boolean, { nullable: true, description: 'true: retired fields too.' }) includeRetired?: boolean | null,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
  ) {
    return customFields.listCustomFields(ctx, appliesTo, includeRetired, options);
  }

  @Authorized('staff')
  @Query(() => CustomFieldModel, { description: 'One custom field definition, retired or not.' })
  customField(@Ctx() ctx: RequestContext, @Arg('customFieldId', () => Int) customFieldId: number) {
    return customFields.getCustomField(ctx, customFieldId);
  }

  @Authorized('staff')
  @Mutation(() => CustomFieldModel, { description: 'Defines (customFieldId 0) or changes a custom field.' })
  saveCustomField(@Ctx() ctx: RequestContext, @Arg('customFieldId', () => Int) customFieldId: number, @Arg('input', () => CustomFieldInput) input: CustomFieldInput) {
    return customFields.saveCustomField(ctx, customFieldId, input);
  }

  @Authorized('staff')
  @Mutation(() => CustomFieldModel, { description: 'Retires a custom field: its values are kept and read, no longer required nor writable.' })
  retireCustomField(@Ctx() ctx: RequestContext, @Arg('customFieldId', () => Int) customFieldId: number, @Arg('auditId', () => Int) auditId: number) {
    return customFields.setCustomFieldRetired(ctx, customFieldId, auditId, true);
  }

  @Authorized('staff')
  @Mutation(() => CustomFieldModel, { description: 'Brings a retired custom field back as it was.' })
  restoreCustomField(@Ctx() ctx: RequestContext, @Arg('customFieldId', () => Int) customFieldId: number, @Arg('auditId', () => Int) auditId: number) {
    return customFields.setCustomFieldRetired(ctx, customFieldId, auditId, false);
  }
}
