import { buildSchema, getIntrospectionQuery, GraphQLError, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  checkOperation,
  countTokens,
  estimateOperationCost,
  measureOperation,
  type OperationLimits,
} from '../../lib/graphql/graphql-operation-limits.ts';
import { withoutSuggestion } from '../../lib/graphql/graphql-suggestion-masking.ts';

/** The shapes the cost model cares about: connections with `first`, their `nodes`, a plain list, an abstract type. */
const schema = buildSchema(`
  type Query { account(id: ID!): Account  me: Account  search: [Hit!]!  now: String }
  type Account { id: ID!  username: String  media(first: Int): MediaConnection!  tags: [String!]!  pages: [Page!]! }
  type Page { id: ID!  name: String }
  type MediaConnection { nodes: [Media!]!  pageInfo: PageInfo! }
  type PageInfo { hasNextPage: Boolean! }
  type Media { id: ID!  caption: String  comments(first: Int): CommentConnection!  owner: Account }
  type CommentConnection { nodes: [Comment!]!  pageInfo: PageInfo! }
  type Comment { id: ID!  text: String  replies(first: Int): CommentConnection!  media: Media! }
  union Hit = Account | Media
`);

function operationOf(query: string) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  return { schema, document, operation };
}

function cost(query: string, variables: Record<string, unknown> = {}, listSize = 25): number | undefined {
  return estimateOperationCost({ ...operationOf(query), variables, listSize, maxNodes: 10_000 });
}

const LIMITS: OperationLimits = { maxDepth: 4, maxAliases: 2, maxRootFields: 2, maxTokens: 1000, maxCost: 100, costListSize: 25 };

function refusal(query: string, variables: Record<string, unknown> = {}): { message: string; extensions: unknown } | undefined {
  try {
    checkOperation(LIMITS, { ...operationOf(query), variables });
    return undefined;
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return { message: error.message, extensions: error.extensions };
  }
}

describe('measureOperation', () => {
  it('counts depth from 1 at the root, through fragments without counting them as a level', () => {
    const { document, operation } = operationOf(`
      query { me { media { nodes { ...M } } } }
      fragment M on Media { comments { nodes { text } } }`);
    expect(measureOperation(schema, document, operation).depth).toBe(6);
  });

  it('counts aliases inside fragments as often as they are spread, but not aliases of __typename', () => {
    const { document, operation } = operationOf(`
      query { a: me { ...F } b: me { ...F } t: __typename }
      fragment F on Account { name: username }`);
    expect(measureOperation(schema, document, operation).aliases).toBe(4);
  });

  it('counts root fields through inline fragments and fragment spreads', () => {
    const { document, operation } = operationOf(`
      query { me { id } ... on Query { now } ...R }
      fragment R on Query { a: now b: now }`);
    expect(measureOperation(schema, document, operation).rootFields).toBe(4);
  });

  it('measures only the operation asked for, not the others of the document', () => {
    const document = parse('query Small { now } query Deep { me { media { nodes { comments { nodes { text } } } } } }');
    const small = document.definitions[0] as OperationDefinitionNode;
    expect(measureOperation(schema, document, small)).toEqual({ depth: 1, aliases: 0, rootFields: 1 });
  });

  it('counts fragments spread over and over in linear time', () => {
    // Each fragment spreads the next twice: 2^40 root fields, which only a count that reuses fragments can finish.
    const fragments = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    const { document, operation } = operationOf(`query { ...F0 } ${fragments.join(' ')} fragment F40 on Query { now }`);
    expect(measureOperation(schema, document, operation).rootFields).toBe(2 ** 40);
  });
});

describe('estimateOperationCost', () => {
  it('costs 1 per object and 0 per scalar', () => {
    expect(cost('{ me { id username tags } now }')).toBe(1);
  });

  it('multiplies a page by its first argument, literal or variable, and not its nodes again', () => {
    expect(cost('{ me { media(first: 10) { nodes { id } } } }')).toBe(1 + 10 * 2);
    expect(cost('query ($n: Int) { me { media(first: $n) { nodes { id } } } }', { n: 3 })).toBe(1 + 3 * 2);
  });

  it('assumes the list size for a page without first and for other lists', () => {
    expect(cost('{ me { media { nodes { id } } pages { id } } }', {}, 10)).toBe(1 + 10 * 2 + 10 * 1);
  });

  it('prices nested pages as the product of their sizes', () => {
    // 25 × (1 + 1 + 25 × (1 + 1 + 25 × (1 + 1))) + 1, the shape of the bench's deep read.
    const deep = '{ me { media(first: 25) { nodes { comments(first: 25) { nodes { replies { nodes { text } } } } } } } }';
    expect(cost(deep)).toBe(1 + 25 * (2 + 25 * (2 + 25 * 2)));
  });

  it('takes the dearest member of a union or interface', () => {
    expect(cost('{ search { ... on Account { media(first: 4) { nodes { id } } } ... on Media { id } } }', {}, 2)).toBe(2 * (1 + 4 * 2));
  });

  it('skips what @skip and @include leave out', () => {
    expect(cost('query ($no: Boolean!) { me @include(if: $no) { id } now }', { no: false })).toBe(0);
  });

  it('gives introspection no cost', () => {
    expect(cost(getIntrospectionQuery())).toBe(0);
  });

  it('leaves variables that do not fit to execution', () => {
    expect(cost('query ($n: Int) { me { media(first: $n) { nodes { id } } } }', { n: 'ten' })).toBeUndefined();
  });

  it('is estimated once per value of the variables it depends on, and again for each new value', () => {
    // One parsed document, as Apollo's document cache hands it back for every request repeating it.
    const query = `query ($n: Int, $m: Int = 2, $id: ID!, $with: Boolean!) {
      me { media(first: $n) { nodes { id ...C } } }
      account(id: $id) @include(if: $with) { id }
    } fragment C on Media { comments(first: $m) { nodes { id } } }`;
    const parsed = operationOf(query);
    const at = (variables: Record<string, unknown>, listSize = 25) =>
      estimateOperationCost({ ...parsed, variables, listSize, maxNodes: 10_000 });
    const costOf = (n: number, m: number, node: boolean) => 1 + n * (2 + m * 2) + (node ? 1 : 0);
    expect(at({ n: 3, id: '1', with: false })).toBe(costOf(3, 2, false));
    expect(at({ n: 3, id: '2', with: false })).toBe(costOf(3, 2, false));
    expect(at({ n: 4, id: '2', with: false })).toBe(costOf(4, 2, false));
    expect(at({ n: 4, m: 5, id: '2', with: false })).toBe(costOf(4, 5, false));
    expect(at({ n: 4, m: 5, id: '2', with: true })).toBe(costOf(4, 5, true));
    expect(at({ n: 3, id: '9', with: false })).toBe(costOf(3, 2, false));
    expect(at({ id: '9', with: false }, 7)).toBe(costOf(7, 2, false));
    expect(at({ n: 'ten', id: '9', with: false })).toBeUndefined();
  });

  it('is infinite for a document that expands to more fields than it will walk', () => {
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    expect(cost(`query { ...F0 } ${fragments.join(' ')} fragment F30 on Query { me { id } }`)).toBe(Infinity);
  });
});

describe('checkOperation', () => {
  it('accepts an operation at every limit', () => {
    expect(refusal('{ a: me { media(first: 10) { nodes { id } } } b: me { id } }')).toBeUndefined();
  });

  it.each([
    ['{ now me { id } account(id: 1) { id } }', 'MAX_ROOT_FIELDS_LIMIT', 'operation selects 3 root fields, more than the limit of 2'],
    ['{ me { media { nodes { comments { nodes { id } } } } } }', 'MAX_DEPTH_LIMIT', 'operation depth 6 exceeds the limit of 4'],
    ['{ me { a: id b: id c: id } }', 'MAX_ALIASES_LIMIT', 'operation uses 3 aliases, more than the limit of 2'],
    [
      '{ me { media(first: 50) { nodes { id } } } }',
      'COST_ESTIMATED_TOO_EXPENSIVE',
      "operation's estimated cost 101 exceeds the limit of 100",
    ],
  ])('refuses %s with %s', (query, code, message) => {
    expect(refusal(query)).toEqual({ message, extensions: { code, http: { status: 400 } } });
  });

  it('answers each request by its own variables, whether or not an estimate for them is kept', () => {
    const parsed = operationOf('query Q($n: Int, $id: ID!) { account(id: $id) { media(first: $n) { nodes { id } } } }');
    const check = (variables: Record<string, unknown>) => {
      try {
        checkOperation(LIMITS, { ...parsed, variables });
        return 'accepted';
      } catch (error) {
        return (error as GraphQLError).extensions.code;
      }
    };
    expect(check({ n: 10, id: '1' })).toBe('accepted');
    // The kept estimate (21) is within the limit: accepted without looking at the id, which execution refuses.
    expect(check({ n: 10, id: { not: 'an id' } })).toBe('accepted');
    expect(check({ n: 500, id: '1' })).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
    expect(check({ n: 500, id: '1' })).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
    // Over the limit, but the variables do not fit the operation: execution refuses them in its own words.
    expect(check({ n: 500, id: { not: 'an id' } })).toBe('accepted');
    expect(check({ n: 'ten', id: '1' })).toBe('accepted');
  });
});

describe('countTokens', () => {
  it('counts punctuators, names and values, not comments', () => {
    expect(countTokens('query Q($id: ID!) { account(id: $id) { id } } # a comment', 1000)).toBe(21);
  });

  it('stops one past the limit', () => {
    expect(countTokens(`{ ${'id '.repeat(100_000)}}`, 10)).toBe(11);
  });
});

describe('withoutSuggestion', () => {
  it.each([
    ['Cannot query field "usernam" on type "Account". Did you mean "username"?', 'Cannot query field "usernam" on type "Account".'],
    ['Value "MAL" does not exist in "Gender" enum. Did you mean the enum value "MALE"?', 'Value "MAL" does not exist in "Gender" enum.'],
    ['Unknown argument "frist". Did you mean "first" or "after"?', 'Unknown argument "frist".'],
    ['No suggestion here.', 'No suggestion here.'],
  ])('%s', (message, expected) => {
    expect(withoutSuggestion(message)).toBe(expected);
  });
});
