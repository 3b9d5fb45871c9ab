import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

const ID_FIELD: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'id' } };

/**
 * The document with `id` selected in every selection set of a type that has one and does not select it (result-tags.ts
 * can then name each object it holds, `T:id`, instead of tagging the whole collection `T`, which every change to any
 * `T` evicts: a deep read's replies without their ids were evicted by every new comment anywhere). The gateway builds
 * its response from the operation's own selections, so the added ids reach no client. A selection set where `id` is
 * already a response key of another field (an alias) is left as it is: the object is then tagged by its collection.
 * Only when the cache is on, so that the cache off sends exactly what the query planner wrote, and only to entity
 * lookups (cacheable-document.ts).
 */
export function withEntityIds(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  let added = false;
  const rewritten = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      SelectionSet: {
        leave(node: SelectionSetNode) {
          const type = getNamedType(typeInfo.getParentType() ?? undefined);
          if (!(isObjectType(type) || isInterfaceType(type)) || !type.getFields().id) return undefined;
          const taken = node.selections.some(
            (selection) => selection.kind === Kind.FIELD && (selection.alias?.value ?? selection.name.value) === 'id',
          );
          if (taken) return undefined;
          added = true;
          return { ...node, selections: [...node.selections, ID_FIELD] };
        },
      },
    }),
  );
  return added ? rewritten : document;
}
