import { Field, Int, ObjectType } from 'type-graphql';

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

/** The actions the caller may take on a row of a staff list (the documented `Actions`). */
export function rowActions(isStaff: boolean): string[] {
  return isStaff ? ['Edit', 'Delete'] : [];
}
