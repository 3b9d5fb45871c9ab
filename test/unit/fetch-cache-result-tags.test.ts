/**
 * The tags of a subgraph reply (gateway/fetch-cache/result-tags.ts): the entities it holds as the change log names them
 * (`T:id`), the collection `T` for what no key names (a root list, a root null, an object whose id the reply does not
 * tell), nothing for what is anchored to an identified parent, and no tags at all (undefined: the reply is not kept)
 * when the reply cannot be vouched for. Each case is a document against a small subgraph schema and the reply it got.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resultTags } from '../../gateway/fetch-cache/result-tags.ts';

const schema = buildSubgraphSchema({
  typeDefs: parse(`
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

    type Query {
      user(id: ID!): User
      userByEmail(email: String!): User
      me: User
      users(first: Int): [User!]!
      maybeUsers: [User]
      post(id: ID!): Post
      node(id: ID!): Node
      nodes: [Node!]!
      search(text: String!): [SearchResult!]!
      pick: SearchResult
      feed: Feed!
      version: String!
      counts: [Int!]!
    }

    type Mutation {
      rename(id: ID!, name: String!): User
    }

    interface Node {
      id: ID!
    }

    type User implements Node @key(fields: "id") {
      id: ID!
      name: String!
      bestFriend: User
      friends: [User!]!
      profile: Profile!
      posts: PostConnection!
      pinned: Post
      favorite: SearchResult
    }

    type Post implements Node @key(fields: "id") {
      id: ID!
      title: String!
      author: User!
    }

    "An entity keyed by something else than an id: the log cannot name one of them."
    type Upload @key(fields: "mediaId") {
      mediaId: ID!
      state: String!
    }

    type Profile {
      bio: String!
      avatar: Image
    }

    type Image {
      url: String!
    }

    type PostConnection {
      nodes: [Post!]!
      pageInfo: PageInfo!
    }

    type PageInfo {
      endCursor: String
    }

    type Tag {
      name: String!
    }

    "Identifiable, but no Node."
    type Badge {
      id: ID!
      label: String!
    }

    union SearchResult = User | Post | Tag | Badge

    type Feed {
      headline: String!
      top: Post
      items: [Post!]!
    }
  `),
});

/** The tags of `data`, the reply to `document` (its first operation, its fragments) with `variables`. */
function tagsOf(document: string, data: Record<string, unknown>, variables?: Record<string, unknown>): string[] | undefined {
  const parsed = parse(document);
  const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  return resultTags(schema, operation, fragments, variables, data);
}

describe('resultTags: an identified root object', () => {
  it("is tagged with the reply's id", () => {
    expect(tagsOf('{ user(id: "1") { id name } }', { user: { id: '1', name: 'Ann' } })).toEqual(['User:1']);
  });

  it("prefers the reply's id over the field's id argument", () => {
    expect(tagsOf('{ user(id: "1") { id } }', { user: { id: '2' } })).toEqual(['User:2']);
  });

  it('takes a numeric id from the reply as its decimal text', () => {
    expect(tagsOf('{ me { id } }', { me: { id: 42 } })).toEqual(['User:42']);
  });

  it("takes the field's id argument, a string or an int literal, when the id is not selected", () => {
    expect(tagsOf('{ user(id: "7") { name } }', { user: { name: 'Ann' } })).toEqual(['User:7']);
    expect(tagsOf('{ user(id: 8) { name } }', { user: { name: 'Ann' } })).toEqual(['User:8']);
  });

  it("takes the field's id argument from its variable, a string or a number", () => {
    const document = 'query ($id: ID!) { user(id: $id) { name } }';
    expect(tagsOf(document, { user: { name: 'Ann' } }, { id: '9' })).toEqual(['User:9']);
    expect(tagsOf(document, { user: { name: 'Ann' } }, { id: 10 })).toEqual(['User:10']);
  });

  it('is tagged with its collection when neither the reply nor an argument tells its id', () => {
    expect(tagsOf('{ me { name } }', { me: { name: 'Ann' } })).toEqual(['User']);
    // A variable that is not bound, or bound to no scalar, names no id.
    const document = 'query ($id: ID!) { user(id: $id) { name } }';
    expect(tagsOf(document, { user: { name: 'Ann' } })).toEqual(['User']);
    expect(tagsOf(document, { user: { name: 'Ann' } }, { id: { not: 'a scalar' } })).toEqual(['User']);
    // An argument of another name is no id.
    expect(tagsOf('{ userByEmail(email: "a@b.c") { name } }', { userByEmail: { name: 'Ann' } })).toEqual(['User']);
  });

  it('reads the id under its alias', () => {
    expect(tagsOf('{ me { key: id } }', { me: { key: '3' } })).toEqual(['User:3']);
    expect(tagsOf('{ user(id: "1") { key: id } }', { user: { key: '3' } })).toEqual(['User:3']);
  });

  it('does not take another field aliased as id for the id', () => {
    expect(tagsOf('{ me { id: name } }', { me: { id: 'Ann' } })).toEqual(['User']);
    expect(tagsOf('{ user(id: "5") { id: name } }', { user: { id: 'Ann' } })).toEqual(['User:5']);
  });

  it('falls back to the argument when the selected id is null', () => {
    expect(tagsOf('{ user(id: "5") { id } }', { user: { id: null } })).toEqual(['User:5']);
  });

  it('tags each aliased root field, in the order of the document', () => {
    expect(tagsOf('{ b: user(id: "2") { id } a: user(id: "1") { id } }', { b: { id: '2' }, a: { id: '1' } })).toEqual(['User:2', 'User:1']);
  });

  it('tags each root field of another type, the entities they hold in the order met', () => {
    expect(tagsOf('{ post(id: "1") { id author { id } } me { id } }', { post: { id: '1', author: { id: '2' } }, me: { id: '3' } })).toEqual(
      ['Post:1', 'User:2', 'User:3'],
    );
  });
});

describe('resultTags: a root list', () => {
  it('is tagged with its collection, then each item by its id', () => {
    expect(tagsOf('{ users { id } }', { users: [{ id: '1' }, { id: '2' }] })).toEqual(['User', 'User:1', 'User:2']);
  });

  it('is tagged with its collection when empty', () => {
    expect(tagsOf('{ users { id } }', { users: [] })).toEqual(['User']);
  });

  it('is tagged with its collection alone when its items do not tell their ids', () => {
    expect(tagsOf('{ users { name } }', { users: [{ name: 'a' }, { name: 'b' }] })).toEqual(['User']);
  });

  it('passes over null items', () => {
    expect(tagsOf('{ maybeUsers { id } }', { maybeUsers: [null, { id: '4' }] })).toEqual(['User', 'User:4']);
  });

  it("anchors each item's own lists and nulls to the item", () => {
    expect(
      tagsOf('{ users { id friends { id } pinned { id } } }', {
        users: [
          { id: '1', friends: [{ id: '2' }], pinned: null },
          { id: '3', friends: [], pinned: null },
        ],
      }),
    ).toEqual(['User', 'User:1', 'User:2', 'User:3']);
  });

  it('is tagged with its collection when it is null', () => {
    expect(tagsOf('{ maybeUsers { id } }', { maybeUsers: null })).toEqual(['User']);
  });
});

describe('resultTags: a root null', () => {
  it("is tagged with the id its field's argument asked for: the entity's creation names it", () => {
    expect(tagsOf('{ user(id: "5") { id } }', { user: null })).toEqual(['User:5']);
    expect(tagsOf('query ($id: ID!) { user(id: $id) { id } }', { user: null }, { id: '6' })).toEqual(['User:6']);
  });

  it('is tagged with its collection when no argument names an id', () => {
    expect(tagsOf('{ me { id } }', { me: null })).toEqual(['User']);
    expect(tagsOf('{ userByEmail(email: "a@b.c") { id } }', { userByEmail: null })).toEqual(['User']);
  });

  it("of an interface is tagged with that id in each of the interface's types", () => {
    expect(tagsOf('{ node(id: "3") { id } }', { node: null })).toEqual(['User:3', 'Post:3']);
  });

  it("of a union is tagged with each member's collection", () => {
    expect(tagsOf('{ pick { __typename } }', { pick: null })).toEqual(['User', 'Post', 'Tag', 'Badge']);
  });
});

describe('resultTags: nested objects', () => {
  it('without an id are part of their identified parent: no tags of their own', () => {
    expect(
      tagsOf('{ user(id: "1") { id profile { bio avatar { url } } posts { pageInfo { endCursor } } } }', {
        user: { id: '1', profile: { bio: 'hi', avatar: { url: 'u' } }, posts: { pageInfo: { endCursor: null } } },
      }),
    ).toEqual(['User:1']);
  });

  it("in a list of an identified parent are tagged by their ids, the list with no collection (the parent's key names it)", () => {
    expect(tagsOf('{ user(id: "1") { id friends { id } } }', { user: { id: '1', friends: [{ id: '2' }, { id: '3' }] } })).toEqual([
      'User:1',
      'User:2',
      'User:3',
    ]);
    expect(tagsOf('{ user(id: "1") { id friends { id } } }', { user: { id: '1', friends: [] } })).toEqual(['User:1']);
  });

  it('under a connection of an identified parent are tagged by their ids', () => {
    expect(
      tagsOf('{ user(id: "1") { id posts { nodes { id title } } } }', {
        user: {
          id: '1',
          posts: {
            nodes: [
              { id: '10', title: 'a' },
              { id: '11', title: 'b' },
            ],
          },
        },
      }),
    ).toEqual(['User:1', 'Post:10', 'Post:11']);
  });

  it('that are null in an identified parent add nothing', () => {
    expect(
      tagsOf('{ user(id: "1") { id pinned { id } bestFriend { id } } }', { user: { id: '1', pinned: null, bestFriend: null } }),
    ).toEqual(['User:1']);
  });

  it('of an identifiable type whose id is not selected are tagged with their collection', () => {
    expect(tagsOf('{ user(id: "1") { id bestFriend { name } } }', { user: { id: '1', bestFriend: { name: 'Bo' } } })).toEqual([
      'User:1',
      'User',
    ]);
    expect(tagsOf('{ user(id: "1") { id friends { name } } }', { user: { id: '1', friends: [{ name: 'Bo' }] } })).toEqual([
      'User:1',
      'User',
    ]);
    expect(tagsOf('{ post(id: "1") { id author { name } } }', { post: { id: '1', author: { name: 'Bo' } } })).toEqual(['Post:1', 'User']);
  });

  it('of an unidentified root: its lists and nulls are tagged with their collections, its identified objects by their ids', () => {
    expect(tagsOf('{ feed { headline items { id } } }', { feed: { headline: 'h', items: [{ id: '1' }, { id: '2' }] } })).toEqual([
      'Post',
      'Post:1',
      'Post:2',
    ]);
    expect(tagsOf('{ feed { top { id } } }', { feed: { top: null } })).toEqual(['Post']);
    expect(tagsOf('{ feed { top { id } } }', { feed: { top: { id: '8' } } })).toEqual(['Post:8']);
    expect(tagsOf('{ feed { items { id } } }', { feed: { items: [] } })).toEqual(['Post']);
  });
});

describe('resultTags: an _entities fetch', () => {
  const document = `query ($representations: [_Any!]!) {
    _entities(representations: $representations) { ... on User { name } ... on Post { title } }
  }`;

  it("tags each entity with its representation's type and id", () => {
    expect(
      tagsOf(
        document,
        { _entities: [{ name: 'Ann' }, { title: 'T' }] },
        {
          representations: [
            { __typename: 'User', id: '1' },
            { __typename: 'Post', id: 2 },
          ],
        },
      ),
    ).toEqual(['User:1', 'Post:2']);
  });

  it("takes the representation's id, not one the reply holds", () => {
    expect(
      tagsOf(
        'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on User { id name } } }',
        { _entities: [{ id: '99', name: 'Ann' }] },
        { representations: [{ __typename: 'User', id: '1' }] },
      ),
    ).toEqual(['User:1']);
  });

  it('tags an entity the subgraph did not find (null) by its representation too', () => {
    expect(tagsOf(document, { _entities: [null] }, { representations: [{ __typename: 'User', id: '1' }] })).toEqual(['User:1']);
  });

  it('tags an entity whose representation has no id with its collection', () => {
    expect(
      tagsOf(
        'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Upload { state } } }',
        { _entities: [{ state: 'done' }] },
        { representations: [{ __typename: 'Upload', mediaId: '5' }] },
      ),
    ).toEqual(['Upload']);
    expect(tagsOf(document, { _entities: [{ name: 'Ann' }] }, { representations: [{ __typename: 'User', id: { nested: true } }] })).toEqual(
      ['User'],
    );
  });

  it("anchors an entity's nested objects to it: their ids tagged, their lists without a collection", () => {
    expect(
      tagsOf(
        `query ($representations: [_Any!]!) {
          _entities(representations: $representations) { ... on User { bestFriend { id } friends { id } pinned { id } profile { bio } } }
        }`,
        { _entities: [{ bestFriend: { id: '2' }, friends: [{ id: '3' }], pinned: null, profile: { bio: 'b' } }] },
        { representations: [{ __typename: 'User', id: '1' }] },
      ),
    ).toEqual(['User:1', 'User:2', 'User:3']);
  });

  it('reads an aliased _entities field as one', () => {
    expect(
      tagsOf(
        'query ($representations: [_Any!]!) { found: _entities(representations: $representations) { ... on User { name } } }',
        { found: [{ name: 'Ann' }] },
        { representations: [{ __typename: 'User', id: '1' }] },
      ),
    ).toEqual(['User:1']);
  });

  it('cannot vouch for a reply its representations do not match', () => {
    const reply = { _entities: [{ name: 'Ann' }, { title: 'T' }] };
    // Fewer representations than entities, and none.
    expect(tagsOf(document, reply, { representations: [{ __typename: 'User', id: '1' }] })).toBeUndefined();
    expect(tagsOf(document, reply, {})).toBeUndefined();
    expect(tagsOf(document, reply)).toBeUndefined();
    expect(tagsOf(document, reply, { representations: { __typename: 'User', id: '1' } })).toBeUndefined();
    // A representation without a type, of a type the schema does not have, or of an abstract one.
    expect(tagsOf(document, { _entities: [{ name: 'Ann' }] }, { representations: [{ id: '1' }] })).toBeUndefined();
    expect(tagsOf(document, { _entities: [{ name: 'Ann' }] }, { representations: [{ __typename: 'Ghost', id: '1' }] })).toBeUndefined();
    expect(tagsOf(document, { _entities: [{ name: 'Ann' }] }, { representations: [{ __typename: 'Node', id: '1' }] })).toBeUndefined();
    // A reply without its list.
    expect(tagsOf(document, { _entities: null }, { representations: [{ __typename: 'User', id: '1' }] })).toBeUndefined();
  });

  it('cannot vouch for an entity holding an abstract object without __typename', () => {
    const favorite = `query ($representations: [_Any!]!) {
      _entities(representations: $representations) { ... on User { favorite { ... on Post { id } } } }
    }`;
    const representations = [{ __typename: 'User', id: '1' }];
    expect(tagsOf(favorite, { _entities: [{ favorite: { id: '2' } }] }, { representations })).toBeUndefined();
  });
});

describe('resultTags: abstract types', () => {
  it('tags an interface object by the concrete type its __typename names', () => {
    expect(tagsOf('{ node(id: "1") { __typename id } }', { node: { __typename: 'Post', id: '1' } })).toEqual(['Post:1']);
    expect(tagsOf('{ node(id: "4") { __typename } }', { node: { __typename: 'User' } })).toEqual(['User:4']);
  });

  it('cannot vouch for an abstract object without __typename, at the root or nested', () => {
    expect(tagsOf('{ node(id: "1") { id } }', { node: { id: '1' } })).toBeUndefined();
    expect(tagsOf('{ node(id: "1") { t: __typename id } }', { node: { t: 'User', id: '1' } })).toBeUndefined();
    expect(tagsOf('{ node(id: "1") { __typename id } }', { node: { __typename: 'Ghost', id: '1' } })).toBeUndefined();
    expect(
      tagsOf('{ user(id: "1") { id favorite { ... on Post { id } } } }', { user: { id: '1', favorite: { id: '2' } } }),
    ).toBeUndefined();
    // One item without it in a list is enough.
    expect(
      tagsOf('{ nodes { __typename id } }', {
        nodes: [{ __typename: 'User', id: '1' }, { id: '2' }],
      }),
    ).toBeUndefined();
  });

  it('tags a nested abstract object with __typename, and adds nothing for a nested abstract null', () => {
    expect(
      tagsOf('{ user(id: "1") { id favorite { __typename ... on Post { id } } } }', {
        user: { id: '1', favorite: { __typename: 'Post', id: '2' } },
      }),
    ).toEqual(['User:1', 'Post:2']);
    expect(tagsOf('{ user(id: "1") { id favorite { __typename } } }', { user: { id: '1', favorite: null } })).toEqual(['User:1']);
  });

  it("tags a root union list with every member's collection, then each identified item", () => {
    expect(
      tagsOf('{ search(text: "x") { __typename ... on User { id } ... on Post { id } ... on Tag { name } } }', {
        search: [
          { __typename: 'Post', id: '1' },
          { __typename: 'Tag', name: 't' },
          { __typename: 'User', id: '2' },
        ],
      }),
    ).toEqual(['User', 'Post', 'Tag', 'Badge', 'Post:1', 'User:2']);
  });

  it("tags a root interface list with each of the interface's types' collections", () => {
    expect(tagsOf('{ nodes { __typename id } }', { nodes: [{ __typename: 'Post', id: '1' }] })).toEqual(['User', 'Post', 'Post:1']);
  });
});

describe('resultTags: fragments', () => {
  it("applies an inline fragment only on its type: another type's id is not read", () => {
    expect(tagsOf('{ node(id: "1") { __typename ... on User { id } } }', { node: { __typename: 'Post', id: '9' } })).toEqual(['Post:1']);
    expect(tagsOf('{ node(id: "1") { __typename ... on User { id } } }', { node: { __typename: 'User', id: '9' } })).toEqual(['User:9']);
  });

  it('applies an inline fragment without a type condition', () => {
    expect(tagsOf('{ me { ... { id } } }', { me: { id: '3' } })).toEqual(['User:3']);
    expect(tagsOf('{ me { ... @include(if: true) { id } } }', { me: { id: '3' } })).toEqual(['User:3']);
  });

  it('applies a named fragment on the type, and not one on another type', () => {
    expect(tagsOf('{ me { ...U } } fragment U on User { id }', { me: { id: '3' } })).toEqual(['User:3']);
    expect(tagsOf('{ node(id: "1") { __typename ...P } } fragment P on Post { id }', { node: { __typename: 'User', id: '9' } })).toEqual([
      'User:1',
    ]);
    expect(tagsOf('{ node(id: "1") { __typename ...P } } fragment P on Post { id }', { node: { __typename: 'Post', id: '9' } })).toEqual([
      'Post:9',
    ]);
  });

  it('applies a fragment on an interface or a union the type belongs to', () => {
    expect(tagsOf('{ user(id: "1") { ...NodeId } } fragment NodeId on Node { id }', { user: { id: '2' } })).toEqual(['User:2']);
    expect(tagsOf('{ user(id: "1") { ... on Node { id } } }', { user: { id: '2' } })).toEqual(['User:2']);
    expect(tagsOf('{ pick { __typename ... on SearchResult { ... on User { id } } } }', { pick: { __typename: 'User', id: '5' } })).toEqual(
      ['User:5'],
    );
  });

  it('does not apply a fragment on an interface the type does not implement', () => {
    expect(tagsOf('{ pick { __typename ... on Node { id } } }', { pick: { __typename: 'Badge', id: '5' } })).toEqual(['Badge']);
    expect(tagsOf('{ pick { __typename ... on Node { id } } }', { pick: { __typename: 'Post', id: '5' } })).toEqual(['Post:5']);
  });

  it('collects the root fields of fragments on the query type', () => {
    expect(tagsOf('{ ...Q } fragment Q on Query { me { id } }', { me: { id: '3' } })).toEqual(['User:3']);
    expect(tagsOf('{ ... on Query { me { id } } }', { me: { id: '3' } })).toEqual(['User:3']);
  });

  it('merges the selections of one response key over several fields', () => {
    expect(tagsOf('{ me { name } me { id } }', { me: { name: 'Ann', id: '3' } })).toEqual(['User:3']);
    expect(tagsOf('{ me { name } ... on Query { me { id } } }', { me: { name: 'Ann', id: '3' } })).toEqual(['User:3']);
  });
});

describe('resultTags: replies it gives no tags', () => {
  it('a mutation', () => {
    expect(tagsOf('mutation { rename(id: "1", name: "x") { id } }', { rename: { id: '1' } })).toBeUndefined();
  });

  it('a root that holds nothing a tag follows: a scalar, a list of scalars, an object without an id or an identified list', () => {
    expect(tagsOf('{ version }', { version: '1.0' })).toBeUndefined();
    expect(tagsOf('{ counts }', { counts: [1, 2] })).toBeUndefined();
    expect(tagsOf('{ feed { headline } }', { feed: { headline: 'h' } })).toBeUndefined();
  });

  it('a reply of which one root field holds nothing a tag follows, whatever the others hold', () => {
    expect(tagsOf('{ me { id } version }', { me: { id: '3' }, version: '1.0' })).toBeUndefined();
    expect(tagsOf('{ version me { id } }', { version: '1.0', me: { id: '3' } })).toBeUndefined();
  });

  it('a root field the query type does not have: introspection, or unknown', () => {
    expect(tagsOf('{ me { id } __type(name: "User") { name } }', { me: { id: '3' }, __type: { name: 'User' } })).toBeUndefined();
    expect(tagsOf('{ __schema { queryType { name } } }', { __schema: { queryType: { name: 'Query' } } })).toBeUndefined();
    expect(tagsOf('{ me { id } nothing }', { me: { id: '3' }, nothing: 1 })).toBeUndefined();
  });

  it('a root of __typename alone holds no entity: an empty list of tags (the cache keeps no reply without tags)', () => {
    expect(tagsOf('{ __typename }', { __typename: 'Query' })).toEqual([]);
  });

  it("passes over the root's __typename beside other fields", () => {
    expect(tagsOf('{ __typename me { id } }', { __typename: 'Query', me: { id: '3' } })).toEqual(['User:3']);
  });
});

describe('resultTags: root fields that repeat tags', () => {
  it('keeps a reply whose second root field names the entity the first did', () => {
    expect(tagsOf('{ a: user(id: "1") { id } b: user(id: "1") { name } }', { a: { id: '1' }, b: { name: 'Ann' } })).toEqual(['User:1']);
  });

  it('keeps a reply of two identical root lists', () => {
    expect(tagsOf('{ a: users { id } b: users { id } }', { a: [{ id: '1' }], b: [{ id: '1' }] })).toEqual(['User', 'User:1']);
  });
});
