import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { Page } from './social-paging.ts';

/** GraphQL pieces both social subgraphs share. */

/** `DateTime`: ISO 8601 in UTC on output; ISO 8601 text on input. */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  serialize: (value) => {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    throw new GraphQLError('DateTime cannot represent a value that is not a date');
  },
  parseValue: (value) => parseDate(value),
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime must be an ISO 8601 string', { nodes: node });
    return parseDate(node.value);
  },
});

function parseDate(value: unknown): Date {
  const date = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
  return date;
}

/** `JSON`: any JSON value, passed through (insight values). */
export const JSONScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: () => {
    throw new GraphQLError('JSON values are only accepted as variables');
  },
});

/**
 * A service page as a GraphQL connection (`nodes`, `pageInfo`). The cursors stay unmade (page.startCursor and endCursor
 * are computed when read) until a query selects them: GraphQL's default resolver reads the getters only then.
 */
export function toConnection<T>(page: Page<T>): { nodes: T[]; pageInfo: PageInfo } {
  return { nodes: page.items, pageInfo: new PageInfo(page) };
}

/** A connection's pageInfo over a page; the cursor getters on the class (not two closures per connection). */
class PageInfo {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;

  constructor(private readonly page: Page<unknown>) {
    this.hasNextPage = page.hasNextPage;
    this.hasPreviousPage = page.hasPreviousPage;
  }

  get startCursor(): string | null {
    return this.page.startCursor ?? null;
  }

  get endCursor(): string | null {
    return this.page.endCursor ?? null;
  }
}
