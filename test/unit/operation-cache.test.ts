/**
 * gateway/stand-ins/operation-cache.ts: executeQueryPlan's conversion of a request's operation into a federation Operation
 * is made once per schema and operation definition, and every other use of operationFromDocument is left as it was.
 */
import * as federationInternals from '@apollo/federation-internals';
import { buildSchema, operationFromDocument } from '@apollo/federation-internals';
import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { memoisedOperationFromDocument, setOperationCache } from '../../gateway/stand-ins/operation-cache.ts';

const SDL = 'type Query { me: User! node(id: ID!): User } type User { id: ID! name: String friends: [User!]! }';

/** The document executeQueryPlan builds at each execution: the operation and the fragments of a parsed request. */
function executionDocument(parsed: DocumentNode): DocumentNode {
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      parsed.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!,
      ...parsed.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION),
    ],
  };
}

describe('the operation cache', () => {
  const schema = buildSchema(SDL);
  const request = parse('query Q($id: ID!) { node(id: $id) { ...F } me { name } } fragment F on User { id friends { name } }');

  it("gives executeQueryPlan's call the same Operation each time, equal to Apollo's", () => {
    const original = vi.fn(operationFromDocument);
    const memoised = memoisedOperationFromDocument(original as never);
    const first = memoised(schema, executionDocument(request), { validate: false });
    const second = memoised(schema, executionDocument(request), { validate: false });
    expect(second).toBe(first);
    expect(original).toHaveBeenCalledTimes(1);
    expect(String(first)).toBe(String(operationFromDocument(schema, executionDocument(request), { validate: false })));
  });

  it('keeps apart another operation definition and another schema', () => {
    const original = vi.fn(operationFromDocument);
    const memoised = memoisedOperationFromDocument(original as never);
    const a = memoised(schema, executionDocument(request), { validate: false });
    const b = memoised(schema, executionDocument(parse('query Q($id: ID!) { node(id: $id) { id } }')), { validate: false });
    const c = memoised(buildSchema(SDL), executionDocument(request), { validate: false });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(String(b)).toBe('query Q($id: ID!) {\n  node(id: $id) {\n    id\n  }\n}');
    expect(original).toHaveBeenCalledTimes(3);
  });

  it("leaves the planner's call (by operation name, validated) and failures to Apollo's function every time", () => {
    const original = vi.fn(operationFromDocument);
    const memoised = memoisedOperationFromDocument(original as never);
    memoised(schema, request, { operationName: 'Q' });
    memoised(schema, request, { operationName: 'Q' });
    memoised(schema, request);
    expect(original).toHaveBeenCalledTimes(3);
    const unknownField = executionDocument(parse('{ nope }'));
    expect(() => memoised(schema, unknownField, { validate: false })).toThrow(/Cannot query field "nope"/);
    expect(() => memoised(schema, unknownField, { validate: false })).toThrow(/Cannot query field "nope"/);
    expect(original).toHaveBeenCalledTimes(5);
  });

  it('is what @apollo/federation-internals exports once installed, and Apollo’s own function again once switched off', () => {
    const apollos = federationInternals.operationFromDocument;
    setOperationCache(true);
    setOperationCache(true);
    const definition = request.definitions[0] as OperationDefinitionNode;
    const document = executionDocument(request);
    expect(document.definitions[0]).toBe(definition);
    const viaPackage = federationInternals.operationFromDocument(schema, document, { validate: false });
    expect(federationInternals.operationFromDocument(schema, executionDocument(request), { validate: false })).toBe(viaPackage);
    setOperationCache(false);
    expect(federationInternals.operationFromDocument).toBe(apollos);
    expect(federationInternals.operationFromDocument(schema, executionDocument(request), { validate: false })).not.toBe(viaPackage);
  });
});
