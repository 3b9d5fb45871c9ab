import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { NUMBER_LIKE_TEXTS, PROTOTYPE_NAMES, hostileString, quote, rawJsonNumber, rawJsonValue, type RawJson } from './hostile-values.ts';

/**
 * GraphQL operations generated from the gateway's own schema (introspected at start): real root fields, arguments of
 * their types (or deliberately of the wrong ones), selections as deep as the schema goes, aliases, inline and named
 * fragments, variables declared and sent with matching or mismatching values (ids such as "1e3", 2^64, -1). On top, the
 * document is damaged in the ways Apollo Router's and graphql-js's limits are about: several operations, unknown
 * operation names, subscriptions, fragment cycles, nesting past the depth limit, alias floods, directives unknown or
 * misplaced, and text cut mid-token.
 */

export interface GeneratedOperation {
  document: string;
  /** Variables as JSON text (so that numbers past 2^53 and 1e400 travel exactly). */
  variables: RawJson | undefined;
  operationName: string | undefined;
}

/** Values the store keys on: fixture-like ids, numbers written every way, prototype names. */
const idLiteral = fc.oneof(
  fc.constantFrom(...NUMBER_LIKE_TEXTS),
  fc.constantFrom('17840000000000017', '17840000000000018', '17841000000000001', '17842000000000001', 'me', ...PROTOTYPE_NAMES),
  hostileString({ maxLength: 500 }),
);

/** A GraphQL literal for an input type (right most of the time, wrong some of the time). */
function literalFor(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
  const wrong = fc.constantFrom('null', '1', '"x"', 'true', '[]', '{}', '1.5', '"1e3"', '-1', '18446744073709551616', 'ENUM_VALUE');
  const named = getNamedType(type);
  let right: fc.Arbitrary<string>;
  if (isListType(getNullableType(type))) {
    const item = (getNullableType(type) as { ofType: GraphQLInputType }).ofType;
    right = depth > 0 ? fc.array(literalFor(item, depth - 1), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`) : fc.constant('[]');
  } else if (isEnumType(named)) {
    right = fc.constantFrom(...named.getValues().map((value) => value.name));
  } else if (isInputObjectType(named)) {
    // Required fields always, optional ones some of the time (a missing required field stops validation at once).
    const fields = Object.values(named.getFields());
    const required = fields.filter((field) => isNonNullType(field.type));
    const optional = fields.filter((field) => !isNonNullType(field.type));
    right =
      depth > 0
        ? fc
            .subarray(optional)
            .chain((chosen) =>
              fc.tuple(
                ...[...required, ...chosen].map((field) => literalFor(field.type, depth - 1).map((value) => `${field.name}: ${value}`)),
              ),
            )
            .map((entries) => `{${entries.join(', ')}}`)
        : fc.constant('{}');
  } else if (isScalarType(named)) {
    switch (named.name) {
      case 'Int':
        return fc.oneof(
          { weight: 6, arbitrary: fc.integer({ min: 0, max: 50 }).map(String) },
          { weight: 1, arbitrary: fc.integer().map(String) },
          { weight: 1, arbitrary: fc.constantFrom('2147483648', '-2147483649', '1e3', '-1') },
          { weight: 1, arbitrary: wrong },
        );
      case 'Float':
        return fc.oneof(
          {
            weight: 6,
            arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => String(value).replace('Infinity', '1e999')),
          },
          { weight: 1, arbitrary: wrong },
        );
      case 'Boolean':
        return fc.oneof({ weight: 6, arbitrary: fc.constantFrom('true', 'false') }, { weight: 1, arbitrary: wrong });
      case 'ID':
      case 'UInt64':
      case 'Int64':
        return fc.oneof(
          { weight: 6, arbitrary: idLiteral.map(quote) },
          { weight: 1, arbitrary: rawJsonNumber().filter((text) => /^-?\d+$/.test(text)) },
          { weight: 1, arbitrary: wrong },
        );
      default:
        return fc.oneof({ weight: 8, arbitrary: hostileString({ maxLength: 2_000 }).map(quote) }, { weight: 1, arbitrary: wrong });
    }
  } else {
    right = wrong;
  }
  return fc.oneof({ weight: 20, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

/** A JSON value for a variable of `type`. */
function jsonFor(type: GraphQLInputType, depth: number): fc.Arbitrary<RawJson> {
  const named = getNamedType(type);
  const wrong = rawJsonValue(2);
  let right: fc.Arbitrary<RawJson>;
  if (isListType(getNullableType(type))) {
    const item = (getNullableType(type) as { ofType: GraphQLInputType }).ofType;
    right = depth > 0 ? fc.array(jsonFor(item, depth - 1), { maxLength: 3 }).map((items) => `[${items.join(',')}]`) : fc.constant('[]');
  } else if (isEnumType(named)) {
    right = fc.constantFrom(...named.getValues().map((value) => quote(value.name)));
  } else if (isInputObjectType(named)) {
    const fields = Object.values(named.getFields());
    const required = fields.filter((field) => isNonNullType(field.type));
    const optional = fields.filter((field) => !isNonNullType(field.type));
    right =
      depth > 0
        ? fc
            .subarray(optional)
            .chain((chosen) =>
              fc.tuple(
                ...[...required, ...chosen].map((field) => jsonFor(field.type, depth - 1).map((value) => `${quote(field.name)}:${value}`)),
              ),
            )
            .map((entries) => `{${entries.join(',')}}`)
        : fc.constant('{}');
  } else if (named.name === 'Int' || named.name === 'Float') {
    right = rawJsonNumber();
  } else if (named.name === 'Boolean') {
    right = fc.constantFrom('true', 'false');
  } else if (named.name === 'ID' || named.name === 'UInt64' || named.name === 'Int64') {
    right = fc.oneof(idLiteral.map(quote), rawJsonNumber());
  } else if (named.name === 'Upload') {
    right = fc.constantFrom('null', '{}', '"file"', '{"createReadStream":1}');
  } else {
    right = hostileString({ maxLength: 20_000 }).map(quote);
  }
  return fc.oneof({ weight: 20, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

function typeText(type: GraphQLInputType): string {
  return String(type);
}

interface BuildState {
  variables: { name: string; type: string; value: fc.Arbitrary<RawJson | undefined> }[];
}

function argumentsFor(field: GraphQLField<unknown, unknown>, state: BuildState): fc.Arbitrary<string> {
  const args = field.args;
  if (args.length === 0)
    return fc.oneof({ weight: 40, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant('(unknownArgument: 1)') });
  const one = (arg: GraphQLArgument): fc.Arbitrary<string | undefined> =>
    fc.oneof(
      { weight: isNonNullType(arg.type) ? 0 : 2, arbitrary: fc.constant(undefined) },
      { weight: 4, arbitrary: literalFor(arg.type, 3).map((value) => `${arg.name}: ${value}`) },
      {
        weight: 4,
        arbitrary: fc.constant(null).map(() => {
          const name = `v${state.variables.length}`;
          // Declared with the argument's type most of the time; sometimes a type that does not match.
          state.variables.push({
            name,
            type: typeText(arg.type),
            value: fc.oneof({ weight: 20, arbitrary: jsonFor(arg.type, 3) }, { weight: 1, arbitrary: fc.constant(undefined) }),
          });
          return `${arg.name}: $${name}`;
        }),
      },
    );
  return fc
    .tuple(
      ...args.map(one),
      fc.oneof(
        { weight: 40, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>('nope: 1', `${args[0]!.name}: null`) },
      ),
    )
    .map((parts) => {
      const present = parts.filter((part): part is string => part !== undefined);
      return present.length === 0 ? '' : `(${present.join(', ')})`;
    });
}

function selectionFor(type: GraphQLNamedType, schema: GraphQLSchema, depth: number, state: BuildState): fc.Arbitrary<string> {
  if (!isObjectType(type) && !isInterfaceType(type) && !isUnionType(type)) return fc.constant('');
  if (isUnionType(type) || isInterfaceType(type)) {
    const possible = schema.getPossibleTypes(type);
    return fc
      .subarray([...possible], { minLength: 1 })
      .chain((types) =>
        fc.tuple(
          ...types.map((one) => selectionFor(one, schema, depth, state).map((inner) => `... on ${one.name} ${inner || '{ __typename }'}`)),
        ),
      )
      .map((parts) => `{ __typename ${parts.join(' ')} }`);
  }
  const objectType = type as GraphQLObjectType;
  const fields = Object.values(objectType.getFields());
  const field = fc.constantFrom(...fields).chain((chosen) => {
    const inner = getNamedType(chosen.type);
    const nested = isObjectType(inner) || isInterfaceType(inner) || isUnionType(inner);
    return fc
      .tuple(
        fc.oneof(
          { weight: 12, arbitrary: fc.constant('') },
          { weight: 1, arbitrary: fc.constantFrom('a: ', 'b: ', '__proto__: ', 'constructor: ', 'toString: ') },
        ),
        argumentsFor(chosen, state),
        nested ? (depth > 0 ? selectionFor(inner, schema, depth - 1, state) : fc.constant('{ __typename }')) : fc.constant(''),
        fc.oneof(
          { weight: 40, arbitrary: fc.constant('') },
          {
            weight: 1,
            arbitrary: fc.constantFrom(' @include(if: true)', ' @skip(if: false)', ' @nope', ' @include', ' @deprecated', ' @defer'),
          },
        ),
      )
      .map(([alias, args, inner, directive]) => `${alias}${chosen.name}${args}${directive} ${inner}`.trim());
  });
  return fc
    .uniqueArray(field, { minLength: 1, maxLength: 3, selector: (text) => text.replace(/^\w+: /, '').split(/[\s({@]/)[0] })
    .map((selected) => `{ ${selected.join(' ')} }`)
    .chain((text) =>
      fc.oneof({ weight: 40, arbitrary: fc.constant(text) }, { weight: 1, arbitrary: fc.constant(text.replace(/^\{/, '{ unknownField ')) }),
    );
}

/** One operation of `kind` on the schema's root type, with its variables. */
function operationOf(
  schema: GraphQLSchema,
  kind: 'query' | 'mutation',
  name: string | undefined,
): fc.Arbitrary<{ text: string; variables: BuildState['variables'] }> {
  const root = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  return fc.integer({ min: 0, max: 5 }).chain((depth) => {
    const state: BuildState = { variables: [] };
    return fc
      .uniqueArray(
        fc.constantFrom(...Object.values(root.getFields())).chain((field) => {
          const inner = getNamedType(field.type);
          return fc
            .tuple(argumentsFor(field, state), selectionFor(inner, schema, depth, state))
            .map(([args, selection]) => `${field.name}${args} ${selection}`.trim());
        }),
        { minLength: 1, maxLength: 2, selector: (text) => text.split(/[\s(]/)[0] },
      )
      .map((fields) => {
        const declared = state.variables.map((variable) => `$${variable.name}: ${variable.type}`);
        const header = `${kind}${name ? ` ${name}` : ''}${declared.length ? `(${declared.join(', ')})` : ''}`;
        return { text: `${header} { ${fields.join(' ')} }`, variables: [...state.variables] };
      });
  });
}

/** Whole-document damage, applied on top of a valid operation now and then. */
function damage(operation: { text: string; name: string | undefined }): fc.Arbitrary<{ text: string; operationName: string | undefined }> {
  const { text, name } = operation;
  return fc.oneof(
    { weight: 40, arbitrary: fc.constant({ text, operationName: name }) },
    { weight: 1, arbitrary: fc.constant({ text, operationName: 'Unknown' }) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, '', '1', ' ').map((operationName) => ({ text, operationName })) },
    { weight: 1, arbitrary: fc.constant({ text: `${text}\nquery Other { __typename }`, operationName: undefined }) },
    {
      weight: 1,
      arbitrary: fc.constant({ text: `${text.replace(/^(query|mutation)( \w+)?/, '$1')}\n{ __typename }`, operationName: undefined }),
    },
    { weight: 1, arbitrary: fc.constant({ text: `{ __typename } { __typename }`, operationName: undefined }) },
    { weight: 1, arbitrary: fc.constant({ text: text.replace(/^(query|mutation)/, 'subscription'), operationName: name }) },
    { weight: 1, arbitrary: fc.constant({ text: 'subscription S { __typename }', operationName: 'S' }) },
    {
      weight: 1,
      arbitrary: fc.constant({ text: `${text}\nfragment A on Query { ...B } fragment B on Query { ...A }`, operationName: name }),
    },
    { weight: 1, arbitrary: fc.constant({ text: 'query Q { ...A } fragment A on Query { ...A }', operationName: 'Q' }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 10, max: 400 }).map((depth) => ({
        text: `{ ${'me { media(first: 1) { nodes { comments(first: 1) { nodes { media { '.repeat(Math.ceil(depth / 6))}id${' } } } } } }'.repeat(Math.ceil(depth / 6))} }`,
        operationName: undefined,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 25, max: 3_000 }).map((count) => ({
        text: `{ ${Array.from({ length: count }, (_, index) => `a${index}: __typename`).join(' ')} me { ${Array.from({ length: Math.min(count, 60) }, (_, index) => `b${index}: id`).join(' ')} } }`,
        operationName: undefined,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 20, max: 100_000 })
        .map((count) => ({ text: `{ ${'__typename '.repeat(count)}}`, operationName: undefined })),
    },
    { weight: 1, arbitrary: fc.nat({ max: Math.max(0, text.length - 1) }).map((at) => ({ text: text.slice(0, at), operationName: name })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          ' ',
          '{',
          '}',
          '#',
          '"""',
          '{ __schema { types { name } } }',
          'query ($a: Int = "x") { __typename }',
          'query { __typename @include(if: $undefined) }',
          '{ userExample(id: "1e3") { id } }',
          '{ comment(id: "1e3") { id } }',
          '{ userExample(id: 18446744073709551616) { id } }',
          '{ userExamples(params: {limit: 1, columns: [{name: "id", exp: "in", value: "1e3"}]}) { total } }',
        )
        .map((document) => ({ text: document, operationName: undefined })),
    },
  );
}

export function operationArbitrary(schema: GraphQLSchema): fc.Arbitrary<GeneratedOperation> {
  return fc
    .tuple(
      fc.constantFrom<'query' | 'mutation'>('query', 'query', 'query', 'mutation'),
      fc.option(fc.constantFrom('Op', 'Fuzz', 'A'), { nil: undefined }),
    )
    .chain(([kind, name]) => operationOf(schema, kind, name).map((operation) => ({ ...operation, name })))
    .chain((operation) =>
      fc.tuple(
        damage({ text: operation.text, name: operation.name }),
        fc.tuple(...operation.variables.map((variable) => variable.value.map((value) => [variable.name, value] as const))),
        fc.oneof(
          { weight: 30, arbitrary: fc.constant<RawJson | undefined>(undefined) },
          { weight: 1, arbitrary: fc.constantFrom<RawJson | undefined>('null', '[]', '"{}"', '1', '{"__proto__":{"x":1}}') },
        ),
      ),
    )
    .map(([{ text, operationName }, values, variablesOverride]) => {
      const entries = values.filter(([, value]) => value !== undefined).map(([name, value]) => `${quote(name)}:${value}`);
      return {
        document: text,
        variables: variablesOverride ?? (entries.length > 0 ? `{${entries.join(',')}}` : undefined),
        operationName,
      };
    });
}
