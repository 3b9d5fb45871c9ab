import fc from 'fast-check';
import {
  ACCOUNT_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
  type FieldSpec,
  type NodeType,
} from '../../../rest-adapter/social-graph/social-node-types.ts';
import { NASTY_STRINGS, NUMBER_LIKE_TEXTS, PROTOTYPE_NAMES, hostileString } from './hostile-values.ts';

/**
 * The Graph `fields=` expansion, generated along its grammar (rest-adapter/social-graph/graph-fields.ts) and the node tables the
 * adapter compiles it with (rest-adapter/social-graph/social-node-types.ts): real fields and edges of each node type, followed
 * through edges to any depth (media{comments{media{comments{…}}}}), with every modifier (.limit .after .before .since
 * .until .as and the parameterised edges' own), hostile modifier arguments, aliases named like Object.prototype's
 * members, unknown and prototype names, and then byte-level damage to the text (cut, braces unbalanced, blanks,
 * unicode) so that the parser's error paths are walked too.
 */

export const NODE_TYPES = {
  account: ACCOUNT_NODE,
  comment: COMMENT_NODE,
  media: MEDIA_NODE,
  container: CONTAINER_NODE,
  page: PAGE_NODE,
  platformUser: PLATFORM_USER_NODE,
} as const;

export interface FieldNode {
  name: string;
  modifiers: [string, string][];
  children: FieldNode[] | undefined;
}

const MODIFIERS = ['limit', 'after', 'before', 'since', 'until', 'as'] as const;

/** Modifier arguments: numbers of every size, times in every notation, cursors, and junk. */
const modifierArgument = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 120 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('2024-01-01', '2024-01-01 12:00', 'yesterday', 'now', '1700000000', '-1', 'QVFIUjRh', 'eyJpZCI6MX0', ''),
  },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: hostileString({ maxLength: 300 }).map((text) => text.replace(/[()]/g, '')) },
);

const aliasArgument = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, 'id', 'data', 'paging', 'error') },
  { weight: 1, arbitrary: hostileString({ maxLength: 100 }).map((text) => text.replace(/[()]/g, '')) },
);

/** Modifiers the field takes (paging on edges, the parameter of parameterised edges, `.as` anywhere), or any. */
function modifierFor(spec: FieldSpec | undefined): fc.Arbitrary<[string, string]> {
  const names: string[] = ['as'];
  if (spec?.kind === 'edge')
    names.push('limit', 'after', 'before', 'limit', ...(spec.timeWindow ? ['since', 'until'] : []), ...Object.keys(spec.arguments ?? {}));
  if (spec?.kind === 'parameterised') names.push(spec.parameter, spec.parameter, spec.parameter);
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc.constantFrom(...MODIFIERS).chain((name) => modifierArgument.map((argument): [string, string] => [name, argument])),
    },
    {
      weight: 8,
      arbitrary: fc
        .constantFrom(...names)
        .chain((name) =>
          (name === 'as' ? aliasArgument : parameterArgument(spec, name)).map((argument): [string, string] => [name, argument]),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('offset', 'fields', 'summary', 'filter', 'order', ...PROTOTYPE_NAMES), modifierArgument),
    },
  );
}

function parameterArgument(spec: FieldSpec | undefined, name: string): fc.Arbitrary<string> {
  if (spec?.kind === 'parameterised' && name === spec.parameter) {
    // Usernames of the fixture and ids of its comments and media, or anything else.
    return fc.oneof(
      fc.constantFrom('roaster', 'bluebottle', 'shady', 'fan_one', 'nobody'),
      fc.constantFrom(...NUMBER_LIKE_TEXTS),
      modifierArgument,
    );
  }
  return modifierArgument;
}

/** A field of `type`: mostly real, sometimes unknown or a prototype name; expands edges and nodes while depth remains. */
function fieldOf(type: NodeType, depth: number): fc.Arbitrary<FieldNode> {
  const real = Object.keys(type.fields);
  const expandable = real.filter((name) => {
    const kind = type.fields[name]!.kind;
    return kind === 'edge' || kind === 'node' || kind === 'parameterised' || kind === 'list';
  });
  const name = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...real) },
    { weight: expandable.length > 0 && depth > 0 ? 6 : 0, arbitrary: fc.constantFrom(...(expandable.length > 0 ? expandable : real)) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'nonexisting',
        'Id',
        'ID',
        'instagram_business_account',
        'social_business_account',
        'data',
        'paging',
        'summary',
      ),
    },
  );
  return name.chain((fieldName) => {
    const spec = Object.hasOwn(type.fields, fieldName) ? type.fields[fieldName] : undefined;
    const childType = spec && 'type' in spec ? spec.type() : undefined;
    // Most fields carry no modifier; parameterised edges need theirs.
    const modifiers = fc.oneof(
      { weight: spec?.kind === 'parameterised' ? 1 : 4, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 2, arbitrary: fc.uniqueArray(modifierFor(spec), { minLength: 1, maxLength: 3, selector: ([modifier]) => modifier }) },
    );
    const children =
      depth > 0
        ? fc.oneof(
            { weight: childType ? 3 : 1, arbitrary: fc.constant(undefined) },
            { weight: childType ? 4 : 1, arbitrary: selectionOf(childType ?? COMMENT_NODE, depth - 1) },
          )
        : fc.constant(undefined);
    return fc.tuple(modifiers, children).map(([mods, kids]): FieldNode => ({ name: fieldName, modifiers: mods, children: kids }));
  });
}

export function selectionOf(type: NodeType, depth: number): fc.Arbitrary<FieldNode[]> {
  return fc.array(fieldOf(type, depth), { minLength: 1, maxLength: depth > 2 ? 3 : 4 });
}

export function serializeFields(fields: readonly FieldNode[], spacing = ''): string {
  return fields
    .map(
      (field) =>
        field.name +
        field.modifiers.map(([name, argument]) => `.${name}(${argument})`).join('') +
        (field.children ? `${spacing}{${serializeFields(field.children, spacing)}}` : ''),
    )
    .join(`,${spacing}`);
}

/**
 * A cycle through edges as deep as the grammar allows (and one level more): the shape of a request that makes the
 * adapter build one enormous GraphQL document and the store fetch every page of every level.
 */
function deepCycle(type: 'account' | 'media' | 'comment'): fc.Arbitrary<string> {
  const cycles: Record<typeof type, string[]> = {
    account: ['media', 'comments', 'media', 'comments'],
    media: ['comments', 'media', 'comments', 'media'],
    comment: ['media', 'comments', 'replies', 'media'],
  };
  return fc
    .tuple(
      fc.integer({ min: 4, max: 17 }),
      fc.option(fc.constantFrom('100', '50', '25', '1000', '99999999999999999999'), { nil: undefined }),
      fc.boolean(),
    )
    .map(([depth, limit, replies]) => {
      const steps = cycles[type];
      let open = '';
      let close = '';
      for (let level = 0; level < depth; level++) {
        let name = steps[level % steps.length]!;
        if (replies && name === 'comments' && level % 3 === 2) name = 'replies';
        open += `${name}${limit !== undefined && name !== 'media' ? `.limit(${limit})` : ''}{id,`;
        close = `}${close}`;
      }
      return `${open}id${close}`;
    });
}

/** Damage to an otherwise well-formed expansion. */
function damaged(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(text) },
    { weight: 1, arbitrary: fc.nat({ max: Math.max(0, text.length) }).map((at) => text.slice(0, at)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.nat({ max: Math.max(0, text.length) }),
          fc.constantFrom('{', '}', '(', ')', ',', '.', ' ', '\t', '\u00a0', '\u0000', '💩', '.as()', '..', '{}'),
        )
        .map(([at, piece]) => text.slice(0, at) + piece + text.slice(at)),
    },
    { weight: 1, arbitrary: fc.constant(text.replace(/,/g, ' , ').replace(/\{/g, ' { ')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{'.repeat(40),
        `${'a{'.repeat(20)}id${'}'.repeat(20)}`,
        ',,,',
        '.',
        'id.',
        'id.limit(',
        'id.limit(1',
        'id.limit((1))',
        `id${'.as(x)'.repeat(50)}`,
        'x'.repeat(9_000),
      ),
    },
  );
}

/** A `fields` value for a node of `type` (sometimes of another type, sometimes plain junk). */
export function fieldsFor(type: keyof typeof NODE_TYPES): fc.Arbitrary<string> {
  const node = NODE_TYPES[type];
  const grammar = fc
    .tuple(selectionOf(node, 4), fc.constantFrom('', '', '', ' '))
    .map(([fields, spacing]) => serializeFields(fields, spacing));
  const cycle = type === 'account' || type === 'media' || type === 'comment' ? deepCycle(type) : grammar;
  return fc
    .oneof(
      { weight: 12, arbitrary: grammar },
      { weight: 2, arbitrary: cycle },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          ...PROTOTYPE_NAMES,
          ...PROTOTYPE_NAMES.map((name) => `id,${name}{id}`),
          'id.as(__proto__)',
          'id.as(constructor),name.as(toString)',
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    )
    .chain(damaged);
}
