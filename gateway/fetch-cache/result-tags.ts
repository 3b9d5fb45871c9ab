import {
  getNamedType,
  isAbstractType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * The tags of a subgraph reply (fetch-cache-store.ts): the entities it holds, named as the change log names them
 * (`<GraphQL type>:<id>`, subgraphs/shared/event-log/change-events.ts), so that a change to any of them evicts it.
 *
 * - An object of a type with an `id` field is tagged `T:<id>` — its id as the reply holds it, the `id` argument of the
 *   field that returned it, or, for an `_entities` fetch, its representation's — and `T` (its collection) when none
 *   of those says which one it is.
 * - An object without an id (a connection, a page info, a comment's author) is part of the nearest object with one: the
 *   log names that one when it changes (a new comment names its media; a published post its account).
 * - A list, or a null, that no identified object holds (a root field's) can gain or lose members no key names: it is
 *   tagged with the collection of its type.
 * - An object whose type the reply does not tell (an abstract type without `__typename`) cannot be vouched for: no tags
 *   (undefined), and the reply is not kept. Nor is a reply whose root holds nothing a tag can follow.
 */
export function resultTags(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Readonly<Record<string, unknown>> | undefined,
  data: Record<string, unknown>,
): string[] | undefined {
  const queryType = schema.getQueryType();
  if (operation.operation !== 'query' || !queryType) return undefined;
  const walk = new TagWalk(schema, fragments, variables ?? {});
  const rootFields = walk.collect(queryType, [operation.selectionSet]);
  for (const [responseKey, nodes] of rootFields) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') continue;
    const field = queryType.getFields()[name];
    if (!field) return undefined;
    const value = data[responseKey];
    const before = walk.given;
    if (name === '_entities') walk.entities(value, variables?.representations, nodes);
    else walk.value(value, field.type, nodes, false, idArgument(nodes[0]!, walk.variables));
    // A root field that gave no tag (another root field may have given the same ones: that is a tag) holds nothing to follow.
    if (walk.unvouched || walk.given === before) return undefined;
  }
  return [...walk.tags];
}

class TagWalk {
  readonly tags = new Set<string>();
  /** Tags given so far, repeats included. */
  given = 0;
  unvouched = false;

  tag(tag: string): void {
    this.tags.add(tag);
    this.given++;
  }

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    readonly variables: Readonly<Record<string, unknown>>,
  ) {}

  /** An `_entities` reply: each object is its representation's entity. */
  entities(value: unknown, representations: unknown, nodes: readonly FieldNode[]): void {
    if (!Array.isArray(value) || !Array.isArray(representations)) {
      this.unvouched = true;
      return;
    }
    value.forEach((item, index) => {
      const representation = representations[index] as { __typename?: unknown; id?: unknown } | undefined;
      const typename = typeof representation?.__typename === 'string' ? representation.__typename : undefined;
      const type = typename === undefined ? undefined : this.schema.getType(typename);
      if (!isObjectType(type)) {
        this.unvouched = true;
        return;
      }
      const id = representation?.id;
      this.tag(typeof id === 'string' || typeof id === 'number' ? `${type.name}:${id}` : type.name);
      if (item !== null && typeof item === 'object') this.object(item as Record<string, unknown>, type, nodes, true, undefined, false);
    });
  }

  value(value: unknown, type: GraphQLOutputType, nodes: readonly FieldNode[], anchored: boolean, idArg: string | undefined): void {
    if (isNonNullType(type)) return this.value(value, type.ofType, nodes, anchored, idArg);
    const named = getNamedType(type);
    if (!isObjectType(named) && !isAbstractType(named)) return;
    if (value === null || value === undefined) {
      if (!anchored) this.collection(named.name, idArg);
      return;
    }
    if (isListType(type)) {
      if (!anchored) this.collection(named.name, undefined);
      if (!Array.isArray(value)) return;
      for (const item of value) this.value(item, type.ofType, nodes, anchored, undefined);
      return;
    }
    if (typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    let concrete: GraphQLObjectType | undefined;
    if (isObjectType(type)) concrete = type;
    else {
      const typename = this.schema.getType(String(record.__typename));
      concrete = isObjectType(typename) ? typename : undefined;
    }
    if (!concrete) {
      this.unvouched = true;
      return;
    }
    this.object(record, concrete, nodes, anchored, idArg, true);
  }

  collect(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
    const fields = new Map<string, FieldNode[]>();
    const visit = (selectionSet: SelectionSetNode) => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const list = fields.get(key);
          if (list) list.push(selection);
          else fields.set(key, [selection]);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          if (this.applies(selection.typeCondition?.name.value, type)) visit(selection.selectionSet);
        } else {
          const fragment = this.fragments.get(selection.name.value);
          if (fragment && this.applies(fragment.typeCondition.name.value, type)) visit(fragment.selectionSet);
        }
      }
    };
    for (const selectionSet of selectionSets) visit(selectionSet);
    return fields;
  }

  /** A tag for the object itself (when `tagSelf`), then its fields' values, anchored to it when it is identified. */
  object(
    record: Record<string, unknown>,
    type: GraphQLObjectType,
    nodes: readonly FieldNode[],
    anchored: boolean,
    idArg: string | undefined,
    tagSelf: boolean,
  ): void {
    const childSets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    const fields = this.collect(type, childSets);
    const typeFields = type.getFields();
    const identifiable = typeFields.id !== undefined;
    if (identifiable && tagSelf) {
      let id: unknown = idArg;
      for (const [responseKey, fieldNodes] of fields) {
        if (fieldNodes[0]!.name.value === 'id' && (typeof record[responseKey] === 'string' || typeof record[responseKey] === 'number')) {
          id = record[responseKey];
        }
      }
      this.tag(id === undefined ? type.name : `${type.name}:${String(id)}`);
    }
    const childAnchored = anchored || identifiable;
    for (const [responseKey, fieldNodes] of fields) {
      const field = typeFields[fieldNodes[0]!.name.value];
      if (!field) continue;
      this.value(record[responseKey], field.type, fieldNodes, childAnchored, idArgument(fieldNodes[0]!, this.variables));
      if (this.unvouched) return;
    }
  }

  /** The collection tag of a type (each possible type of an abstract one): a member may come or go without a key naming it. */
  private collection(typeName: string, idArg: string | undefined): void {
    const type = this.schema.getType(typeName);
    const members = isAbstractType(type) ? this.schema.getPossibleTypes(type) : isObjectType(type) ? [type] : [];
    for (const member of members) {
      // A null of `field(id: …)` is that id's absence: the entity's own key names its creation.
      this.tag(idArg !== undefined && member.getFields().id ? `${member.name}:${idArg}` : member.name);
    }
  }

  private applies(condition: string | undefined, type: GraphQLObjectType): boolean {
    if (condition === undefined || condition === type.name) return true;
    const conditionType = this.schema.getType(condition);
    return isAbstractType(conditionType) && this.schema.isSubType(conditionType, type);
  }
}

/** The field's `id` argument as a string (a literal or a variable), when it has one. */
function idArgument(node: FieldNode, variables: Readonly<Record<string, unknown>>): string | undefined {
  const argument = node.arguments?.find((arg) => arg.name.value === 'id');
  return argument ? scalarText(argument.value, variables) : undefined;
}

function scalarText(value: ValueNode, variables: Readonly<Record<string, unknown>>): string | undefined {
  if (value.kind === Kind.STRING || value.kind === Kind.INT) return value.value;
  if (value.kind === Kind.VARIABLE) {
    const bound = variables[value.name.value];
    return typeof bound === 'string' || typeof bound === 'number' ? String(bound) : undefined;
  }
  return undefined;
}
