/**
 * Stand-in `result-shaping` (lib/stand-ins/stand-in-registry.ts): the gateway's result shaping, compiled per request —
 * the same answer as @apollo/gateway's `computeResponse` (dist/resultShaping.js, 2.14.4) at a fraction of its cost on
 * large replies.
 *
 * After the query plan has run, @apollo/gateway walks the merged subgraph data along the operation and builds the reply:
 * only the fields the client asked for, under their aliases, `__typename` resolved, @skip/@include applied, nulls
 * propagated to the nearest nullable parent, leaf values checked against their types. Its walk re-derives everything
 * from the operation for every object of the reply: two directive lookups per selection (arrays allocated), a result
 * object per value, getters of federation-internals' CommonJS re-exports on every type test, and null-prototype output
 * objects (dictionary mode in V8, slow to fill and to serialise): on the deep read (25 media × 25 comments × 2 replies)
 * a large part of the gateway's CPU (bench/README.md, "Stand-ins").
 *
 * Here each selection set of the operation is compiled once per request, on first use (the request's variables are
 * known, so @skip/@include are decided there), into a flat list of entries; the walk over the data then only reads
 * those. Type-condition tests and leaf checkers are cached. Outputs are ordinary objects: a response name that is also
 * a property of Object.prototype (`constructor`, `__proto__`, …) is read and written as an own property.
 *
 * Behaviour is Apollo's, line for line (checked against it by test/unit/result-shaping.test.ts, which runs both on
 * generated data): the same values, the same errors with the same messages and paths, the same assertion failures. It
 * is installed by setResultShaping (result-shaping-install.ts) only once the stand-in's gate has passed.
 */
import {
  assert,
  ERRORS,
  isSubtype,
  isValidLeafValue,
  typenameFieldName,
  Variable,
  type CompositeType,
  type Directive,
  type EnumType,
  type FieldSelection,
  type FragmentSelection,
  type NamedType,
  type Operation,
  type ScalarType,
  type Schema,
  type SelectionSet,
  type Type,
} from '@apollo/federation-internals';
import type { GraphQLError } from 'graphql';

export interface ComputeResponseArgs {
  operation: Operation;
  variables?: Record<string, unknown>;
  input: Record<string, unknown> | null | undefined;
  introspectionHandling: (introspectionSelection: FieldSelection) => unknown;
}

export interface ComputedResponse {
  data: Record<string, unknown> | null | undefined;
  errors: GraphQLError[];
}

type Path = (string | number)[];
type Output = Record<string, unknown>;

const enum EntryKind {
  Field,
  Typename,
  Introspection,
  Fragment,
}

/** A selection whose @skip/@include could not be decided (a bad variable): Apollo fails when it reaches it. */
interface Failing {
  readonly failure: unknown;
}

interface FieldEntry {
  readonly kind: EntryKind.Field;
  readonly responseName: string;
  /** The response name is also a property of Object.prototype: read and written as an own property. */
  readonly inherited: boolean;
  readonly type: Type;
  readonly selectionSet: SelectionSet | undefined;
}

interface TypenameEntry {
  readonly kind: EntryKind.Typename;
  readonly responseName: string;
  readonly inherited: boolean;
}

interface IntrospectionEntry {
  readonly kind: EntryKind.Introspection;
  readonly responseName: string;
  readonly inherited: boolean;
  readonly selection: FieldSelection;
}

interface FragmentEntry {
  readonly kind: EntryKind.Fragment;
  readonly typeCondition: CompositeType | undefined;
  readonly selectionSet: SelectionSet;
  /** typeConditionApplies, by the object's __typename. */
  readonly byTypename: Map<string, boolean>;
  /** typeConditionApplies, by the parent type (objects without __typename). */
  readonly byParentType: Map<CompositeType, boolean>;
}

type Entry = FieldEntry | TypenameEntry | IntrospectionEntry | FragmentEntry | Failing;

/** The state of one computeResponse call. */
interface Walk {
  readonly schema: Schema;
  readonly variables: Record<string, unknown>;
  readonly errors: GraphQLError[];
  readonly compiled: Map<SelectionSet, Entry[]>;
  readonly introspectionHandling: ComputeResponseArgs['introspectionHandling'];
  /** Flags of the last updateOutputValue call (Apollo returns them in an object per value). */
  isInvalid: boolean;
  hasErrors: boolean;
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

function readOwn(object: Output, key: string, inherited: boolean): unknown {
  return inherited ? (hasOwn(object, key) ? object[key] : undefined) : object[key];
}

function writeOwn(object: Output, key: string, value: unknown, inherited: boolean): void {
  if (inherited) Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

export function computeResponse({ operation, variables, input, introspectionHandling }: ComputeResponseArgs): ComputedResponse {
  if (!input) return { data: input, errors: [] };
  const schema = operation.schema();
  const walk: Walk = {
    schema,
    variables: { __proto__: null, ...operation.collectDefaultedVariableValues(), ...variables } as Record<string, unknown>,
    errors: [],
    compiled: new Map(),
    introspectionHandling,
    isInvalid: false,
    hasErrors: false,
  };
  const data: Output = {};
  const rootType = schema.schemaDefinition.rootType(operation.rootKind) as CompositeType;
  const bubbled = !applySelectionSet(walk, input, operation.selectionSet, data, [], rootType);
  return { data: bubbled ? null : data, errors: walk.errors };
}

function ifValue(directive: Directive, variables: Record<string, unknown>): boolean {
  const ifArg = (directive.arguments() as { if: unknown }).if;
  if (ifArg instanceof Variable) {
    const value = variables[ifArg.name];
    if (!(value !== undefined && typeof value === 'boolean'))
      assert(false, () => `Unexpected value ${String(value)} for variable ${String(ifArg)} of ${String(directive)}`);
    return value as boolean;
  }
  return ifArg as boolean;
}

function shouldSkip(element: FieldSelection['element'] | FragmentSelection['element'], walk: Walk): boolean {
  const skip = element.appliedDirectivesOf(walk.schema.skipDirective())[0] as Directive | undefined;
  const include = element.appliedDirectivesOf(walk.schema.includeDirective())[0] as Directive | undefined;
  return !!((skip && ifValue(skip, walk.variables)) || (include && !ifValue(include, walk.variables)));
}

function compile(walk: Walk, selectionSet: SelectionSet): Entry[] {
  let entries = walk.compiled.get(selectionSet);
  if (entries) return entries;
  entries = [];
  for (const selection of selectionSet.selections()) {
    try {
      if (shouldSkip(selection.element, walk)) continue;
    } catch (failure) {
      entries.push({ failure });
      continue;
    }
    if (selection.kind === 'FieldSelection') {
      const field = selection.element;
      const responseName = field.responseName();
      const inherited = responseName in Object.prototype;
      if (field.definition.isSchemaIntrospectionField()) {
        entries.push({ kind: EntryKind.Introspection, responseName, inherited, selection });
      } else if (field.name === typenameFieldName) {
        entries.push({ kind: EntryKind.Typename, responseName, inherited });
      } else {
        entries.push({
          kind: EntryKind.Field,
          responseName,
          inherited,
          type: field.definition.type!,
          selectionSet: selection.selectionSet,
        });
      }
    } else {
      entries.push({
        kind: EntryKind.Fragment,
        typeCondition: selection.element.typeCondition,
        selectionSet: selection.selectionSet,
        byTypename: new Map(),
        byParentType: new Map(),
      });
    }
  }
  walk.compiled.set(selectionSet, entries);
  return entries;
}

function typeConditionApplies(walk: Walk, entry: FragmentEntry, typename: string | undefined, parentType: CompositeType): boolean {
  const typeCondition = entry.typeCondition;
  if (!typeCondition) return true;
  if (typename) {
    let applies = entry.byTypename.get(typename);
    if (applies === undefined) {
      const type = walk.schema.type(typename);
      applies = !!type && isSubtype(typeCondition, type);
      entry.byTypename.set(typename, applies);
    }
    return applies;
  }
  let applies = entry.byParentType.get(parentType);
  if (applies === undefined) {
    applies = isSubtype(typeCondition, parentType);
    entry.byParentType.set(parentType, applies);
  }
  return applies;
}

/** Returns false where Apollo returns ApplyResult.NULL_BUBBLE_UP. */
function applySelectionSet(
  walk: Walk,
  input: Output,
  selectionSet: SelectionSet,
  output: Output,
  path: Path,
  parentType: CompositeType,
): boolean {
  const entries = compile(walk, selectionSet);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if ('failure' in entry) throw entry.failure;
    switch (entry.kind) {
      case EntryKind.Introspection: {
        if (readOwn(output, entry.responseName, entry.inherited) === undefined) {
          writeOwn(output, entry.responseName, walk.introspectionHandling(entry.selection), entry.inherited);
        }
        break;
      }
      case EntryKind.Typename: {
        const responseName = entry.responseName;
        if (readOwn(output, responseName, entry.inherited) !== undefined) break;
        let inputValue = (hasOwn(input, responseName) ? input[responseName] : undefined) ?? null;
        if (inputValue === null && responseName !== typenameFieldName) inputValue = input[typenameFieldName] ?? null;
        const type: NamedType | CompositeType =
          inputValue !== null && typeof inputValue === 'string' ? (walk.schema.type(inputValue) ?? parentType) : parentType;
        if (type.kind !== 'ObjectType') return false;
        writeOwn(output, responseName, type.name, entry.inherited);
        break;
      }
      case EntryKind.Field: {
        const responseName = entry.responseName;
        const outputValue = readOwn(output, responseName, entry.inherited);
        const inputValue = (hasOwn(input, responseName) ? input[responseName] : undefined) ?? null;
        path.push(responseName);
        const updated = updateOutputValue(walk, outputValue, entry.type, inputValue, entry.selectionSet, path, parentType);
        writeOwn(output, responseName, updated, entry.inherited);
        path.pop();
        if (walk.isInvalid) return false;
        break;
      }
      case EntryKind.Fragment: {
        const typename = input[typenameFieldName];
        if (!(!typename || typeof typename === 'string')) assert(false, () => `Got unexpected value for __typename: ${String(typename)}`);
        if (typeConditionApplies(walk, entry, typename as string | undefined, parentType)) {
          if (!applySelectionSet(walk, input, entry.selectionSet, output, path, entry.typeCondition ?? parentType)) return false;
        }
        break;
      }
    }
  }
  return true;
}

function pathLastElementDescription(path: Path, currentType: Type, parentType: CompositeType): string {
  const element = path[path.length - 1];
  assert(element !== undefined, 'Should not have been called on an empty path');
  return typeof element === 'string'
    ? `field ${String(parentType)}.${element}`
    : `array element of type ${String(currentType)} at index ${element}`;
}

/** Sets the flags of its result on walk (isInvalid, hasErrors) and returns the updated value. */
function done(walk: Walk, updated: unknown, isInvalid: boolean, hasErrors: boolean): unknown {
  walk.isInvalid = isInvalid;
  walk.hasErrors = hasErrors;
  return updated;
}

function updateOutputValue(
  walk: Walk,
  outputValue: unknown,
  type: Type,
  inputValue: unknown,
  selectionSet: SelectionSet | undefined,
  path: Path,
  parentType: CompositeType,
): unknown {
  assert(inputValue !== undefined, 'Should not pass undefined for `inputValue` to this method');
  // Apollo's assertions, with the same messages, but tested before the message function is made: `assert(ok, () => …)`
  // allocated a closure per value of the reply even when the check passed.
  if (outputValue === null || (outputValue !== undefined && !selectionSet)) return done(walk, outputValue, false, false);
  switch (type.kind) {
    case 'NonNullType': {
      const updated = updateOutputValue(walk, outputValue, type.ofType, inputValue, selectionSet, path, parentType);
      if (updated === null) {
        if (!walk.hasErrors) {
          walk.errors.push(
            ERRORS.INVALID_GRAPHQL.err(
              `Cannot return null for non-nullable ${pathLastElementDescription(path, type.ofType, parentType)}.`,
              {
                path: Array.from(path),
              },
            ),
          );
        }
        return done(walk, null, true, true);
      }
      return done(walk, updated, false, false);
    }
    case 'ListType': {
      if (inputValue === null) return done(walk, null, false, false);
      if (!Array.isArray(inputValue))
        assert(false, () => `Invalid non-list value ${String(inputValue)} returned by subgraph for list type ${String(type)}`);
      if (!(outputValue === undefined || Array.isArray(outputValue)))
        assert(false, () => `Invalid non-list value ${String(outputValue)} returned by subgraph for list type ${String(type)}`);
      const length = inputValue.length;
      const outputList = outputValue as unknown[] | undefined;
      if (!(outputList === undefined || length === outputList.length))
        assert(false, () => `[${String(inputValue)}].length (${length}) !== [${String(outputList)}].length (${outputList!.length})`);
      let shouldNullify = false;
      let hasErrors = false;
      const updated = new Array<unknown>(length);
      for (let idx = 0; idx < length; idx++) {
        path.push(idx);
        updated[idx] = updateOutputValue(
          walk,
          outputList === undefined ? undefined : outputList[idx],
          type.ofType,
          inputValue[idx],
          selectionSet,
          path,
          parentType,
        );
        path.pop();
        if (walk.isInvalid) shouldNullify = true;
        if (walk.hasErrors) hasErrors = true;
      }
      return done(walk, shouldNullify ? null : updated, false, hasErrors);
    }
    case 'ObjectType':
    case 'InterfaceType':
    case 'UnionType': {
      if (inputValue === null) return done(walk, null, false, false);
      if (!selectionSet) assert(false, () => `Invalid empty selection set for composite type ${String(type)}`);
      if (typeof inputValue !== 'object')
        assert(false, () => `Invalid non-object value ${String(inputValue)} returned by subgraph for composite type ${String(type)}`);
      if (!(outputValue === undefined || typeof outputValue === 'object'))
        assert(false, () => `Invalid non-object value ${String(inputValue)} returned by subgraph for composite type ${String(type)}`);
      const input = inputValue as Output;
      const inputTypename = input[typenameFieldName];
      if (!(inputTypename === undefined || typeof inputTypename === 'string'))
        assert(false, () => `Invalid non-string value ${String(inputTypename)} for __typename at ${String(path)}`);
      let objType: CompositeType = type;
      if (inputTypename) {
        const typenameType = walk.schema.type(inputTypename as string);
        if (
          !typenameType ||
          !(typenameType.kind === 'ObjectType' || typenameType.kind === 'InterfaceType' || typenameType.kind === 'UnionType')
        ) {
          walk.errors.push(
            ERRORS.INVALID_GRAPHQL.err(`Invalid __typename found for object at ${pathLastElementDescription(path, type, parentType)}.`, {
              path: Array.from(path),
            }),
          );
          return done(walk, null, false, true);
        }
        objType = typenameType;
      }
      const outputObject = outputValue === undefined ? {} : (outputValue as Output);
      const ok = applySelectionSet(walk, input, selectionSet, outputObject, path, objType);
      return done(walk, ok ? outputObject : null, false, !ok);
    }
    default: {
      if (inputValue === null) return done(walk, null, false, false);
      if (outputValue !== undefined)
        assert(false, () => `Excepted output to be undefined but got ${String(type)} for type ${String(type)}`);
      // A field's type is an output type: what is left here is a scalar or an enum.
      const isValidValue = isValidLeafValue(walk.schema, inputValue, type as ScalarType | EnumType);
      if (!isValidValue) {
        walk.errors.push(
          ERRORS.INVALID_GRAPHQL.err(`Invalid value found for ${pathLastElementDescription(path, type, parentType)}.`, {
            path: Array.from(path),
          }),
        );
      }
      return done(walk, isValidValue ? inputValue : null, false, !isValidValue);
    }
  }
}
