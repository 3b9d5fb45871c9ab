import {
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * Library copy `static-cache-policy` (lib/stand-ins/stand-in-registry.ts): the cache policy Apollo Server's cache-control
 * plugin (@apollo/server 5.5.1, `ApolloServerPluginCacheControl`) computes for a response from the schema's
 * `@cacheControl` hints, computed once per document instead of per resolved field. Its rules, copied:
 * - a field returning an object, interface or union takes its type's hint, then its own (`inheritMaxAge` on either
 *   leaves the maxAge to the parent's); a field's scope PRIVATE makes the whole response PRIVATE;
 * - a root field, and a field returning a composite type that does not inherit, with no maxAge gets 0 (uncacheable);
 *   other scalar fields inherit and restrict nothing;
 * - `_entities` (@apollo/subgraph 2.14.4's entitiesResolver) is also restricted by each entity type's own hint: here the
 *   types its fragments name, the types the query planner sends representations of;
 * - the response's policy is the shortest maxAge and PRIVATE over PUBLIC of all its fields'.
 * Where it differs, it is stricter: every field the document selects counts, also those the data never reaches (under a
 * null, in an empty list, skipped by @skip/@include, on a fragment of another type), where the plugin counts only the
 * fields that resolved. Dynamic hints (`info.cacheControl.setCacheHint`) are not offered: no resolver here gives one.
 *
 * Used where no Apollo Server runs a subgraph's fields one by one: in the gateway's process (embedded mode: @apollo/gateway's
 * own LocalGraphQLDataSource reports no hints at all) and behind a subgraph server's compiled executor (the engine has no
 * per-field hooks: subgraphs/subgraph-executor.ts). Held to the plugin by test/unit/static-cache-policy.comparison.test.ts.
 */

export type CacheScope = 'PUBLIC' | 'PRIVATE';

/** A cache hint, as Apollo's plugin reads `@cacheControl` (an unset maxAge or scope restricts nothing). */
export interface CacheHint {
  maxAge?: number;
  scope?: CacheScope;
}

/** How long and for whom a response may be reused; undefined maxAge or 0: not at all. */
export interface CachePolicyResult {
  maxAge: number | undefined;
  scope: CacheScope | undefined;
}

interface Annotation extends CacheHint {
  inheritMaxAge?: boolean;
}

/** The policy of one operation of `document` (the only one, or `operationName`'s); unknown operation: uncacheable. */
export function staticCachePolicy(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): CachePolicyResult {
  const policy = new Policy();
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION && (operationName == null || definition.name?.value === operationName)) {
      operation ??= definition;
    }
  }
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return { maxAge: 0, scope: undefined };
  const walk = (selectionSet: SelectionSetNode, parentType: GraphQLCompositeType, isRoot: boolean, seen: ReadonlySet<string>) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType;
        if (type && isCompositeType(type)) walk(selection.selectionSet, type, isRoot, seen);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && type && isCompositeType(type) && !seen.has(name))
          walk(fragment.selectionSet, type, isRoot, new Set([...seen, name]));
        continue;
      }
      // Meta fields (__typename, introspection) run no resolver of the schema's: the plugin never sees them.
      if (selection.name.value.startsWith('__')) continue;
      const field = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields()[selection.name.value] : undefined;
      if (!field) continue;
      const target = getNamedType(field.type);
      policy.restrict(
        fieldPolicy(schema, field, target, isRoot, selection.name.value === '_entities' ? selection.selectionSet : undefined),
      );
      if (selection.selectionSet && isCompositeType(target)) walk(selection.selectionSet, target, false, seen);
    }
  };
  walk(operation.selectionSet, root, true, new Set());
  return { maxAge: policy.maxAge, scope: policy.scope };
}

/** The policy a field restricts the response by, as the plugin's willResolveField makes it. */
function fieldPolicy(
  schema: GraphQLSchema,
  field: GraphQLField<unknown, unknown>,
  target: GraphQLNamedType,
  isRoot: boolean,
  entitiesSelection: SelectionSetNode | undefined,
): Policy {
  const policy = new Policy();
  let inheritMaxAge = false;
  const composite = isCompositeType(target);
  if (composite) {
    const annotation = typeAnnotation(target);
    policy.replace(annotation);
    inheritMaxAge = !!annotation.inheritMaxAge;
  }
  const annotation = fieldAnnotation(field.astNode);
  if (annotation.inheritMaxAge && policy.maxAge === undefined) {
    inheritMaxAge = true;
    if (annotation.scope) policy.replace({ scope: annotation.scope });
  } else {
    policy.replace(annotation);
  }
  if (entitiesSelection) {
    for (const selection of entitiesSelection.selections) {
      if (selection.kind !== Kind.INLINE_FRAGMENT || !selection.typeCondition) continue;
      const type = schema.getType(selection.typeCondition.name.value);
      if (type && (isObjectType(type) || isInterfaceType(type))) policy.restrict(typeAnnotation(type));
    }
  }
  if (policy.maxAge === undefined && ((composite && !inheritMaxAge) || isRoot)) policy.restrict({ maxAge: 0 });
  return policy;
}

const typeAnnotations = new WeakMap<GraphQLNamedType, Annotation>();

function typeAnnotation(type: GraphQLNamedType): Annotation {
  let annotation = typeAnnotations.get(type);
  if (!annotation) {
    annotation = annotationOf(type.astNode?.directives) ?? firstAnnotation(type.extensionASTNodes) ?? {};
    typeAnnotations.set(type, annotation);
  }
  return annotation;
}

function firstAnnotation(nodes: readonly { directives?: readonly DirectiveNode[] }[]): Annotation | undefined {
  for (const node of nodes) {
    const annotation = annotationOf(node.directives);
    if (annotation) return annotation;
  }
  return undefined;
}

function fieldAnnotation(node: FieldDefinitionNode | undefined | null): Annotation {
  return annotationOf(node?.directives) ?? {};
}

/** `@cacheControl(maxAge:, scope:, inheritMaxAge:)` as the plugin reads it (literal arguments only). */
function annotationOf(directives: readonly DirectiveNode[] | undefined): Annotation | undefined {
  const directive = directives?.find((candidate) => candidate.name.value === 'cacheControl');
  if (!directive?.arguments) return undefined;
  const argument = (name: string) => directive.arguments!.find((candidate) => candidate.name.value === name)?.value;
  const scopeValue = argument('scope');
  const scopeName = scopeValue?.kind === Kind.ENUM ? scopeValue.value : undefined;
  const scope = scopeName === 'PUBLIC' || scopeName === 'PRIVATE' ? scopeName : undefined;
  const inherit = argument('inheritMaxAge');
  if (inherit?.kind === Kind.BOOLEAN && inherit.value) return { inheritMaxAge: true, scope };
  const maxAge = argument('maxAge');
  return { maxAge: maxAge?.kind === Kind.INT ? parseInt(maxAge.value, 10) : undefined, scope };
}

/** Apollo's cache policy (@apollo/server 5.5.1's cachePolicy.ts): the shortest maxAge, PRIVATE over PUBLIC. */
class Policy {
  maxAge: number | undefined = undefined;
  scope: CacheScope | undefined = undefined;

  restrict(hint: CacheHint): void {
    if (hint.maxAge !== undefined && (this.maxAge === undefined || hint.maxAge < this.maxAge)) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined && this.scope !== 'PRIVATE') this.scope = hint.scope;
  }

  replace(hint: CacheHint): void {
    if (hint.maxAge !== undefined) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined) this.scope = hint.scope;
  }
}
