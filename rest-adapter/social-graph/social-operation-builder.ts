import type { FieldModifier, FieldSelection } from './graph-fields.ts';
import { ownValue } from '../../lib/own-value.ts';
import { GRAPH_ERRORS } from './graph-errors.ts';
import { DEFAULT_PAGE_MAX, DEFAULT_PAGE_SIZE, type ExpansionBudget } from './field-expansion-budget.ts';
import { GraphReplyError } from './graph-reply-error.ts';
import type { FieldSpec, NodeType } from './social-node-types.ts';

/**
 * Turns a parsed `fields=` expansion into one GraphQL selection over the supergraph, and records a plan the renderer walks
 * to give the result back its Graph shape. Every value taken from the request (limits, cursors, times, usernames, ids)
 * travels as a GraphQL variable, never as text inside the document.
 *
 * Each Graph field becomes an aliased GraphQL field whose alias is the Graph output key (the field's name, or its
 * `.as(alias)`), so the result already has the Graph keys; the plan says how to render each one.
 */

export interface PlanField {
  /** Output key: the Graph name or its alias. */
  key: string;
  /** The Graph field name (for nested edges' links: it is also the edge's path). */
  name: string;
  spec: FieldSpec;
  /** Sub-plan of node, edge, parameterised and list fields. */
  children?: PlanField[];
  /** Edges: the nested selection as written, and the limit asked for, to repeat them in next/previous links. */
  selection?: FieldSelection[] | undefined;
  limit?: string | undefined;
  /** Edges: the other modifiers a link must repeat as parameters (`since`, `until`, `business`). */
  linkParameters?: [string, string][];
  /** Edges under a parameterised expansion (business_discovery, mentioned_*) page with cursors only (§3.2). */
  cursorsOnly?: boolean;
}

/** Variables collected while building, and their declarations. */
export class VariableBag {
  readonly values: Record<string, unknown> = {};
  private readonly declarations: string[] = [];

  add(type: string, value: unknown): string {
    const name = `v${this.declarations.length}`;
    this.declarations.push(`$${name}: ${type}`);
    this.values[name] = value;
    return `$${name}`;
  }

  /** `($v0: Int, $v1: String)`, or empty. */
  declare(): string {
    return this.declarations.length > 0 ? `(${this.declarations.join(', ')})` : '';
  }
}

const PAGE_INFO = 'pageInfo { startCursor endCursor hasNextPage hasPreviousPage }';
/** Largest value GraphQL's Int carries; a bigger limit is cut (the edge cuts it further to its own maximum). */
const INT_MAX = 2_147_483_647;

function invalid(message: string): GraphReplyError {
  return new GraphReplyError(GRAPH_ERRORS.invalidParameter('Invalid parameter', message));
}

/** A `limit` value: digits only. */
export function parseLimit(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw invalid(`The parameter limit must be a non-negative integer, got "${text}".`);
  return Math.min(Number(text.trim()), INT_MAX);
}

/** What a selection inherits from where it sits in the expansion. */
export interface BuildContext {
  /** Under a parameterised expansion, edges page with cursors only (§3.2). */
  cursorsOnly: boolean;
  /** How many objects of this type the reply may hold here (the product of the page sizes above). */
  parents: number;
  /** What the whole expansion may ask for; undefined: unbounded (the request's own code built it). */
  budget: ExpansionBudget | undefined;
}

/**
 * Builds the selection of `type` for `fields` (its default fields when undefined). `id` is always selected and, unless
 * asked for, rendered last (§1.2: "the requested fields plus id").
 */
export function buildSelection(
  type: NodeType,
  fields: readonly FieldSelection[] | undefined,
  variables: VariableBag,
  context: Partial<BuildContext> = {},
  options: { withoutId?: boolean } = {},
): { text: string; plan: PlanField[] } {
  const inherited: BuildContext = { cursorsOnly: context.cursorsOnly ?? false, parents: context.parents ?? 1, budget: context.budget };
  const requested: FieldSelection[] =
    fields !== undefined ? [...fields] : type.defaultFields.map((name) => ({ name, modifiers: [], selection: undefined, position: 0 }));
  if (!options.withoutId && !requested.some((field) => field.name === 'id' && field.modifiers.length === 0)) {
    requested.push({ name: 'id', modifiers: [], selection: undefined, position: 0 });
  }
  const parts: string[] = [];
  const plan: PlanField[] = [];
  const keys = new Map<string, string>();
  for (const field of requested) {
    const spec = ownValue(type.fields, field.name);
    if (!spec) throw new GraphReplyError(GRAPH_ERRORS.unknownField(field.name, type.name));
    const alias = modifier(field, 'as')?.argument;
    // A name GraphQL reserves (`__typename`, `__proto__`) cannot be an output key.
    if (alias !== undefined && (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(alias) || alias.startsWith('__'))) {
      throw new GraphReplyError(GRAPH_ERRORS.unknownFields(alias));
    }
    const key = alias ?? field.name;
    const signature = JSON.stringify([field.name, field.modifiers.map((m) => [m.name, m.argument]), field.selection ?? null]);
    const existing = keys.get(key);
    if (existing !== undefined) {
      if (existing === signature) continue; // the same field twice: once is enough
      throw invalid(`The field key ${key} is used for two different fields; give one of them another .as() alias.`);
    }
    keys.set(key, signature);
    const built = buildField(field, key, spec, variables, inherited);
    parts.push(built.text);
    plan.push(built.plan);
  }
  return { text: `{ ${parts.join(' ')} }`, plan };
}

function modifier(field: FieldSelection, name: string): FieldModifier | undefined {
  return field.modifiers.find((m) => m.name === name);
}

function checkModifiers(field: FieldSelection, allowed: readonly string[]): void {
  for (const m of field.modifiers) {
    if (m.name !== 'as' && !allowed.includes(m.name)) {
      throw invalid(`The modifier .${m.name}() is not supported on the field ${field.name}.`);
    }
  }
}

function noSelection(field: FieldSelection): void {
  if (field.selection !== undefined) throw invalid(`The field ${field.name} has no subfields to select.`);
}

/** Counts `perParent` objects under each parent against the budget; the objects a nested selection sits under. */
function holding(context: BuildContext, perParent: number, isEdge: boolean): BuildContext {
  const parents = context.budget ? context.budget.count(context.parents, perParent, isEdge) : context.parents * perParent;
  return { ...context, parents };
}

function buildField(
  field: FieldSelection,
  key: string,
  spec: FieldSpec,
  variables: VariableBag,
  inherited: BuildContext,
): { text: string; plan: PlanField } {
  const head = key === spec.graphql ? spec.graphql : `${key}: ${spec.graphql}`;
  switch (spec.kind) {
    case 'scalar':
      checkModifiers(field, []);
      noSelection(field);
      return { text: head, plan: { key, name: field.name, spec } };
    case 'object':
      checkModifiers(field, []);
      noSelection(field);
      return { text: `${head} ${spec.selection}`, plan: { key, name: field.name, spec } };
    case 'node':
    case 'list': {
      checkModifiers(field, []);
      const inner = buildSelection(
        spec.type(),
        field.selection,
        variables,
        spec.kind === 'node' ? holding(inherited, 1, false) : holding(inherited, DEFAULT_PAGE_SIZE, true),
      );
      return { text: `${head} ${inner.text}`, plan: { key, name: field.name, spec, children: inner.plan } };
    }
    case 'parameterised': {
      checkModifiers(field, [spec.parameter]);
      const parameter = modifier(field, spec.parameter)?.argument;
      const argument =
        parameter === undefined || parameter === '' ? '' : `(${spec.argument}: ${variables.add(spec.argumentType, parameter)})`;
      const inner = buildSelection(spec.type(), field.selection, variables, { ...holding(inherited, 1, true), cursorsOnly: true });
      return { text: `${head}${argument} ${inner.text}`, plan: { key, name: field.name, spec, children: inner.plan } };
    }
    case 'edge': {
      const extra = Object.keys(spec.arguments ?? {});
      checkModifiers(field, [
        ...(spec.timeWindow ? ['limit', 'after', 'before', 'since', 'until'] : ['limit', 'after', 'before']),
        ...extra,
      ]);
      const args: string[] = [];
      const linkParameters: [string, string][] = [];
      for (const name of ['since', 'until', ...extra]) {
        const value = modifier(field, name)?.argument;
        if (value !== undefined) linkParameters.push([name, value]);
      }
      for (const name of extra) {
        const value = modifier(field, name)?.argument;
        const { argument, type } = spec.arguments![name]!;
        if (value !== undefined) args.push(`${argument}: ${variables.add(type, value)}`);
      }
      const limit = modifier(field, 'limit')?.argument;
      const first = limit === undefined ? undefined : parseLimit(limit);
      if (first !== undefined) args.push(`first: ${variables.add('Int', first)}`);
      const pageSize = Math.min(first ?? DEFAULT_PAGE_SIZE, spec.maxLimit ?? DEFAULT_PAGE_MAX);
      for (const name of ['after', 'before', 'since', 'until'] as const) {
        const value = modifier(field, name)?.argument;
        if (value !== undefined) args.push(`${name}: ${variables.add('String', value)}`);
      }
      const inner = buildSelection(spec.type(), field.selection, variables, holding(inherited, pageSize, true));
      const argText = args.length > 0 ? `(${args.join(', ')})` : '';
      return {
        text: `${head}${argText} { nodes ${inner.text} ${PAGE_INFO} }`,
        plan: {
          key,
          name: field.name,
          spec,
          children: inner.plan,
          selection: field.selection,
          limit,
          linkParameters,
          cursorsOnly: inherited.cursorsOnly || spec.cursorsOnly === true,
        },
      };
    }
  }
}
