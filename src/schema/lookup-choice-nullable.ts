import { Field, Int, ObjectType } from 'type-graphql';

/** The documented LookupChoiceNullable: a lookup choice whose Id may be null (a "none" or "top level" choice). */
@ObjectType('LookupChoiceNullable', { description: 'One choice of a lookup list whose Id is a string of digits, or null for a choice that is no record (e.g. "Top level").' })
export class LookupChoiceNullable {
  @Field(() => String, { nullable: true }) Id!: string | null;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) ExtraData!: string | null;
  @Field(() => String, { nullable: true }) CssColor!: string | null;
  @Field(() => Boolean) IsSelected!: boolean;
  @Field(() => Boolean) IsDeleted!: boolean;
  @Field(() => Int) Order!: number;
}

/** Rows with an id (or null) and a name as LookupChoiceNullable choices, in the given order. */
export function nullableLookupChoices(rows: readonly { id: number | null; name: string | null; extraData?: string | null }[]): LookupChoiceNullable[] {
  return rows.map((row, index) => ({
    Id: row.id === null ? null : String(row.id), Name: row.name, ExtraData: row.extraData ?? null, CssColor: null, IsSelected: false, IsDeleted: false, Order: index,
  }));
}
