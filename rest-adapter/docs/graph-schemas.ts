import {
  buildSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import {
  ACCOUNT_NODE,
  AD_ACCOUNT_NODE,
  BUSINESS_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  HASHTAG_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
  UPCOMING_EVENT_NODE,
  type NodeType,
} from '../social-graph/social-node-types.ts';

/**
 * JSON schemas of the Graph objects of Areas B and C (OpenAPI 3 components), made from the two things that define them:
 * the node tables the REST adapter renders with (rest-adapter/social-graph/social-node-types.ts: which Graph fields exist and
 * what kind each is) and the supergraph (the type and `"""` description of the GraphQL field behind each). A field added
 * to a node table therefore appears in the documents with its type and description, with nothing written twice.
 */

type Schema = Record<string, unknown>;

/** The GraphQL object behind each Graph node type (the node tables name them as the platform's errors do). */
const GRAPHQL_TYPE: Readonly<Record<string, string>> = {
  SocialComment: 'Comment',
  SocialMedia: 'Media',
  SocialUser: 'Account',
  SocialContainer: 'MediaContainer',
  SocialHashtag: 'Hashtag',
  UpcomingEvent: 'UpcomingEvent',
  Business: 'Business',
  AdAccount: 'AdAccount',
  Page: 'Page',
  User: 'PlatformUser',
};

/** Every node type the documents describe. */
export const GRAPH_NODE_TYPES: readonly NodeType[] = [
  COMMENT_NODE,
  MEDIA_NODE,
  ACCOUNT_NODE,
  CONTAINER_NODE,
  HASHTAG_NODE,
  UPCOMING_EVENT_NODE,
  BUSINESS_NODE,
  AD_ACCOUNT_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
];

/** `2017-05-19T23:27:28+0000`: how the Graph surface writes every timestamp. */
export const GRAPH_TIMESTAMP = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+0000$',
  example: '2026-11-01T12:00:00+0000',
};

/** The component name of a node type's page (`{data, paging}`). */
export const pageName = (node: NodeType): string => `${node.name}Page`;

const componentRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

function scalarSchema(type: GraphQLOutputType, timestamp: boolean): Schema {
  if (isNonNullType(type)) return scalarSchema(type.ofType, timestamp);
  if (isListType(type)) return { type: 'array', items: scalarSchema(type.ofType, timestamp) };
  if (timestamp) return { ...GRAPH_TIMESTAMP };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return { type: 'integer' };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      default:
        return { type: 'string' };
    }
  }
  return { type: 'object' };
}

/** One node type as a schema: every Graph field optional (a reply holds the default fields and those asked for). */
function nodeSchema(schema: GraphQLSchema, node: NodeType): Schema {
  const graphqlType = schema.getType(GRAPHQL_TYPE[node.name] ?? '');
  if (!isObjectType(graphqlType)) throw new Error(`no GraphQL object behind the Graph node type ${node.name}`);
  const graphqlFields = graphqlType.getFields();
  const properties: Record<string, Schema> = {};
  for (const [name, spec] of Object.entries(node.fields)) {
    const field = graphqlFields[spec.graphql];
    if (!field) throw new Error(`${node.name}.${name}: no field ${spec.graphql} on ${graphqlType.name}`);
    const description = field.description ? { description: field.description } : {};
    switch (spec.kind) {
      case 'scalar':
        properties[name] = { ...scalarSchema(field.type, spec.format === 'timestamp'), ...description };
        break;
      case 'object': {
        const objectType = getNamedType(field.type);
        const inner = isObjectType(objectType) ? objectType.getFields() : {};
        properties[name] = {
          type: 'object',
          properties: Object.fromEntries(Object.entries(inner).map(([key, value]) => [key, scalarSchema(value.type, false)])),
          ...description,
        };
        break;
      }
      case 'node':
      case 'parameterised':
        // `{id}` unless expanded with `{…}`; expansion only for parameterised fields (business_discovery.username(x){…}).
        properties[name] = { allOf: [componentRef(spec.type().name)], ...description };
        break;
      case 'edge':
        properties[name] = { allOf: [componentRef(pageName(spec.type()))], ...description };
        break;
      case 'list':
        properties[name] = {
          type: 'object',
          properties: { data: { type: 'array', items: componentRef(spec.type().name) } },
          ...description,
        };
        break;
    }
  }
  return {
    type: 'object',
    description: `The ${node.name} node. A bare read returns ${node.defaultFields.join(', ')}; \`fields\` asks for others.`,
    properties,
  };
}

/** `paging` of cursor-paged lists: cursors of the first and last item, absolute links that repeat the request. */
export const GRAPH_PAGING: Schema = {
  type: 'object',
  properties: {
    cursors: { type: 'object', properties: { before: { type: 'string' }, after: { type: 'string' } } },
    previous: { type: 'string', format: 'uri' },
    next: { type: 'string', format: 'uri', description: 'Absent on the last page.' },
  },
};

/** Components of every Graph node type and its page, from the node tables and the supergraph SDL. */
export function buildGraphSchemas(supergraphSdl: string): Record<string, Schema> {
  const schema = buildSchema(supergraphSdl, { assumeValidSDL: true });
  const components: Record<string, Schema> = { GraphPaging: GRAPH_PAGING };
  for (const node of GRAPH_NODE_TYPES) {
    components[node.name] = nodeSchema(schema, node);
    components[pageName(node)] = {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'array', items: componentRef(node.name) }, paging: componentRef('GraphPaging') },
    };
  }
  return components;
}
