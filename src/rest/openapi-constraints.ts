import { getMetadataStorage as validationStorage } from 'class-validator';
import { getMetadataStorage as typeStorage } from 'type-graphql';
import { argumentCrossFieldRules, crossFieldRulesOf, ruleOfArgument, type ArgumentRule, type CrossFieldRule } from '../core/argument-rules.js';

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
  /** Rules across the fields of an input argument that this operation checks beside its type's (`alsoKeeping`). */
  acrossFields?: readonly CrossFieldRule<unknown>[];
}

/** The rules of every field of the GraphQL input type `typeName` (by schema field name); empty when its class has none. */
export function inputFieldRules(typeName: string): Map<string, FieldRules> {
  const inputClass = typeStorage().inputTypes.find((candidate) => candidate.name === typeName);
  return inputClass ? classFieldRules(inputClass.target as ClassType) : new Map<string, FieldRules>();
}

/** The rules across the fields of the GraphQL input type `typeName` (`@AcrossFields`). */
export function inputCrossFieldRules(typeName: string): readonly CrossFieldRule<unknown>[] {
  return crossFieldRulesOf(typeStorage().inputTypes.find((candidate) => candidate.name === typeName)?.target);
}

/**
 * The rules of the arguments of the root field `Query.name` or `Mutation.name`: a `@RuledArg`
 * argument's rule, and the class-validator rules of an `@Args` class's fields.
 */
export function argumentRules(operation: string): Map<string, FieldRules> {
  const [parent, name] = operation.split('.');
  const storage = typeStorage();
  const resolver = (parent === 'Mutation' ? storage.mutations : storage.queries).find((candidate) => candidate.schemaName === name);
  const rules = new Map<string, FieldRules>();
  for (const param of resolver?.params ?? []) {
    if (param.kind === 'args') for (const [field, fieldRule] of classFieldRules(param.getType() as ClassType)) rules.set(field, fieldRule);
    const acrossFields = param.kind === 'arg' ? argumentCrossFieldRules(param.validateFn) : [];
    if (param.kind === 'arg' && acrossFields.length) rules.set(param.name, { keywords: {}, required: false, notes: [], acrossFields });
    const rule = param.kind === 'custom' && param.options.arg ? ruleOfArgument(param.resolver) : undefined;
    if (rule && param.kind === 'custom' && param.options.arg) rules.set(param.options.arg.name, { keywords: rule.schema, required: false, notes: [] });
  }
  return rules;
}

/** A class (an input or arguments type). */
type ClassType = abstract new (...args: never[]) => unknown;

function classFieldRules(target: ClassType): Map<string, FieldRules> {
  const rules = new Map<string, FieldRules>();
  const schemaNames = new Map(typeStorage().fields
    .filter((field) => field.target === target || Object.prototype.isPrototypeOf.call(field.target.prototype, target.prototype))
    .map((field) => [field.name, field.schemaName]));
  const metadata = validationStorage().getTargetValidationMetadatas(target, '', true, false);
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
        const flags = pattern.flags.replace(/[gu]/g, '');
        // JSON Schema patterns have no flags: a case-insensitive one is spelled out ([sS][tT]...).
        if (flags === 'i') target.pattern = caseInsensitive(pattern.source);
        else if (flags) notes.push(`matches /${pattern.source}/${pattern.flags}`);
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
      case 'conforms': Object.assign(target, (first as ArgumentRule<unknown>).schema); break;
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

/** A regular expression's source that matches what it matched with the `i` flag, without the flag. */
export function caseInsensitive(source: string): string {
  let result = '';
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      // An escape keeps its letter (\d, \S), and \x and \u keep their hex digits.
      const length = source[index + 1] === 'x' ? 4 : source[index + 1] === 'u' ? 6 : 2;
      result += source.slice(index, index + length);
      index += length - 1;
    } else if (inClass) {
      const range = /^([a-zA-Z])-([a-zA-Z])/.exec(source.slice(index));
      if (range) {
        result += `${range[0]}${swapCase(range[1])}-${swapCase(range[2])}`;
        index += 2;
      } else {
        result += /[a-zA-Z]/.test(char) ? `${char}${swapCase(char)}` : char;
        if (char === ']') inClass = false;
      }
    } else if (char === '[') {
      inClass = true;
      result += char;
      if (source[index + 1] === '^') result += source[++index];
    } else {
      result += /[a-zA-Z]/.test(char) ? `[${char.toLowerCase()}${char.toUpperCase()}]` : char;
    }
  }
  return result;
}

function swapCase(char: string): string {
  return char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
}

/**
 * A field's schema with its rules: keywords that fit the field's type are merged in (a string
 * field's `minimum` means nothing), an "empty means none" field keeps accepting "", and notes go
 * to the description.
 */
export function withRules(schema: JsonSchema, rules: FieldRules | undefined): JsonSchema {
  if (!rules) return schema;
  const { emptyAllowed, items, description: ruleDescription, ...keywords } = rules.keywords;
  // A required field (IsDefined, IsNotEmpty) refuses null as well as absence.
  let result: JsonSchema = rules.required ? withoutNull(schema) : { ...schema };
  if (typeof ruleDescription === 'string') result.description = joined(result.description, ruleDescription);
  if (items && typeof result.items === 'object' && result.items !== null && !('$ref' in result.items)) result.items = { ...result.items, ...(items as JsonSchema) };
  if ('$ref' in result || 'anyOf' in result) return withNotes(result, rules.notes);
  if (keywords.type === 'integer') {
    // IsInt on a Float field: the document says integer.
    result.type = Array.isArray(result.type) ? (result.type as unknown[]).map((type) => (type === 'number' ? 'integer' : type)) : 'integer';
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

function withoutNull(schema: JsonSchema): JsonSchema {
  const result = { ...schema };
  if (Array.isArray(result.type)) result.type = (result.type as unknown[]).filter((type) => type !== 'null');
  if (Array.isArray(result.anyOf)) result.anyOf = (result.anyOf as JsonSchema[]).filter((branch) => branch.type !== 'null');
  return result;
}

function withNotes(schema: JsonSchema, notes: string[]): JsonSchema {
  return notes.length ? { ...schema, description: joined(schema.description, `Also ${notes.join('; ')}.`) } : schema;
}

function joined(first: unknown, second: string): string {
  return typeof first === 'string' && first ? `${first} ${second}` : second;
}
