import { getMetadataStorage as validationStorage } from 'class-validator';
import { getMetadataStorage as typeStorage } from 'type-graphql';

/*
 * The input rules the server enforces, as JSON Schema keywords for the OpenAPI document: read
 * from the class-validator decorators of each GraphQL input class (the rules `validateInput`
 * checks), so the document cannot say less than the server checks. A rule with no JSON Schema
 * equivalent (a custom validator) is named in the field's description instead.
 */

type JsonSchema = Record<string, unknown>;
type ValidationMetadata = ReturnType<ReturnType<typeof validationStorage>['getTargetValidationMetadatas']>[number];

export interface FieldRules {
  /** Keywords for the field's value (or for each item, for `each` rules: under `items`). */
  keywords: JsonSchema;
  /** The field must be given (IsDefined / IsNotEmpty on a field GraphQL lets be null). */
  required: boolean;
  /** Rules the keywords cannot say, for the description. */
  notes: string[];
}

/** The rules of every field of the GraphQL input type `typeName` (by schema field name); empty when its class has none. */
export function inputFieldRules(typeName: string): Map<string, FieldRules> {
  const rules = new Map<string, FieldRules>();
  const inputClass = typeStorage().inputTypes.find((candidate) => candidate.name === typeName);
  if (!inputClass) return rules;
  const schemaNames = new Map(typeStorage().fields
    .filter((field) => field.target === inputClass.target || Object.prototype.isPrototypeOf.call(field.target.prototype, inputClass.target.prototype))
    .map((field) => [field.name, field.schemaName]));
  const metadata = validationStorage().getTargetValidationMetadatas(inputClass.target, '', true, false);
  for (const property of new Set(metadata.map((entry) => entry.propertyName))) {
    const own = metadata.filter((entry) => entry.propertyName === property);
    rules.set(schemaNames.get(property) ?? property, fieldRules(own, property));
  }
  return rules;
}

function fieldRules(metadata: ValidationMetadata[], property: string): FieldRules {
  const value: JsonSchema = {};
  const items: JsonSchema = {};
  const notes: string[] = [];
  let required = false;
  for (const entry of metadata) {
    const target = entry.each ? items : value;
    const [first, second] = (entry.constraints ?? []) as unknown[];
    switch (entry.name ?? entry.type) {
      case 'min': target.minimum = first; break;
      case 'max': target.maximum = first; break;
      case 'minLength': target.minLength = first; break;
      case 'maxLength': target.maxLength = first; break;
      case 'isLength':
        if (typeof first === 'number' && first > 0) target.minLength = first;
        if (typeof second === 'number') target.maxLength = second;
        break;
      case 'matches': {
        const pattern = first instanceof RegExp ? first : new RegExp(String(first), typeof second === 'string' ? second : '');
        if (pattern.flags.replace(/[gu]/g, '')) notes.push(`matches /${pattern.source}/${pattern.flags}`);
        else target.pattern = pattern.source;
        break;
      }
      case 'isIn': target.enum = first; break;
      case 'isEmail': target.format = 'email'; break;
      case 'isUrl': {
        const protocols = (first as { protocols?: string[] } | undefined)?.protocols ?? ['http', 'https', 'ftp'];
        target.format = 'uri';
        target.pattern = `^(${protocols.join('|')})://`;
        break;
      }
      case 'isInt': target.type = 'integer'; break;
      case 'arrayMaxSize': value.maxItems = first; break;
      case 'arrayMinSize': value.minItems = first; break;
      case 'isNotEmpty': required = true; target.minLength ??= 1; break;
      case 'isDefined': required = true; break;
      case 'isOptional': case 'isString': case 'isBoolean': case 'nestedValidation': break;
      default:
        if (entry.type === 'conditionalValidation') {
          // ValidateIf: when the rule lets an empty string pass unchecked, the document says so.
          const condition = first as ((object: object, value: unknown) => boolean) | undefined;
          if (condition && !condition({ [property]: '' }, '')) value.emptyAllowed = true;
        } else if (entry.name) {
          notes.push(`checked by ${entry.name}`);
        }
    }
  }
  return { keywords: Object.keys(items).length ? { ...value, items } : value, required, notes };
}

/**
 * A field's schema with its rules: keywords that fit the field's type are merged in (a string
 * field's `minimum` means nothing), an "empty means none" field keeps accepting "", and notes go
 * to the description.
 */
export function withRules(schema: JsonSchema, rules: FieldRules | undefined): JsonSchema {
  if (!rules) return schema;
  const { emptyAllowed, items, ...keywords } = rules.keywords;
  let result: JsonSchema = { ...schema };
  if (items && typeof result.items === 'object' && result.items !== null && !('$ref' in result.items)) result.items = { ...result.items, ...(items as JsonSchema) };
  if ('$ref' in result || 'anyOf' in result) return withNotes(result, rules.notes);
  if (keywords.type === 'integer') {
    // IsInt on a Float field: the document says integer.
    result.type = Array.isArray(result.type) ? result.type.map((type) => (type === 'number' ? 'integer' : type)) : 'integer';
    delete keywords.type;
  }
  if (emptyAllowed && Object.keys(keywords).length) {
    const { type, description, ...rest } = result;
    result = { type, description, anyOf: [{ const: '' }, { ...rest, ...keywords }] };
    if (Array.isArray(type) && type.includes('null')) (result.anyOf as JsonSchema[]).push({ type: 'null' });
    return withNotes({ ...result, description: joined(description, 'An empty string means none.') }, rules.notes);
  }
  return withNotes({ ...result, ...keywords }, rules.notes);
}

function withNotes(schema: JsonSchema, notes: string[]): JsonSchema {
  return notes.length ? { ...schema, description: joined(schema.description, `Also ${notes.join('; ')}.`) } : schema;
}

function joined(first: unknown, second: string): string {
  return typeof first === 'string' && first ? `${first} ${second}` : second;
}
