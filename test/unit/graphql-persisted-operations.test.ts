import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/config.ts';
import { checkManifest, createPersistedQueryManifest, loadPersistedOperations } from '../../lib/graphql/graphql-persisted-operations.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const BODY = 'query Me { me { id username } }';

describe('createPersistedQueryManifest', () => {
  it("writes Apollo's manifest with the SHA-256 of each body as its id", () => {
    expect(createPersistedQueryManifest([BODY, 'mutation { deleteComment(id: "1") { success } }'])).toEqual({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [
        { id: createHash('sha256').update(BODY).digest('hex'), name: 'Me', type: 'query', body: BODY },
        {
          id: createHash('sha256').update('mutation { deleteComment(id: "1") { success } }').digest('hex'),
          name: '',
          type: 'mutation',
          body: 'mutation { deleteComment(id: "1") { success } }',
        },
      ],
    });
  });
});

describe('loadPersistedOperations', () => {
  it('is nothing when off', () => {
    expect(loadPersistedOperations({ mode: 'off', manifestPath: undefined })).toBeUndefined();
  });

  it('finds listed bodies by id and by exact text', () => {
    const path = file('ok.json', JSON.stringify(createPersistedQueryManifest([BODY])));
    const operations = loadPersistedOperations({ mode: 'require', manifestPath: path })!;
    const id = createHash('sha256').update(BODY).digest('hex');
    expect(operations.body(id)).toBe(BODY);
    expect(operations.body('0'.repeat(64))).toBeUndefined();
    expect(operations.listsText(BODY)).toBe(true);
    expect(operations.listsText(`${BODY} `)).toBe(false);
    expect(operations.size).toBe(1);
  });

  it('refuses a file it cannot read, naming the variable', () => {
    const path = join(dir, 'missing.json');
    expect(() => loadPersistedOperations({ mode: 'allow', manifestPath: path })).toThrow(ConfigError);
    expect(() => loadPersistedOperations({ mode: 'allow', manifestPath: path })).toThrow(
      `configuration: GRAPHQL_PERSISTED_OPERATIONS_MANIFEST (${path}) cannot be read: ENOENT`,
    );
  });

  it('refuses a file that is not JSON', () => {
    const path = file('broken.json', '{"format":');
    expect(() => loadPersistedOperations({ mode: 'allow', manifestPath: path })).toThrow(
      `configuration: GRAPHQL_PERSISTED_OPERATIONS_MANIFEST (${path}) is not JSON`,
    );
  });
});

describe('checkManifest', () => {
  const manifest = (operations: unknown[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });

  it.each([
    [{ format: 'other', version: 1, operations: [] }, 'must be an apollo-persisted-query-manifest of version 1'],
    [{ format: 'apollo-persisted-query-manifest', version: 2, operations: [] }, 'must be an apollo-persisted-query-manifest of version 1'],
    [{ format: 'apollo-persisted-query-manifest', version: 1 }, 'must list "operations"'],
    [manifest([{ name: 'Me', type: 'query', body: BODY }]), 'operation 0 has no "id"'],
    [manifest([{ id: 'a', name: 'Me', type: 'query' }]), 'operation 0 (a) has no "body"'],
    [
      manifest([
        { id: 'a', name: 'Me', type: 'query', body: BODY },
        { id: 'a', name: 'Other', type: 'query', body: '{ now }' },
      ]),
      'operation 1: id a is listed twice with different bodies',
    ],
    [
      manifest([{ id: 'a', name: 'Me', type: 'query', body: '{ me ' }]),
      'operation 0 (a) is not a GraphQL operation: Syntax Error: Expected Name, found <EOF>.',
    ],
    [
      manifest([{ id: 'a', name: 'Two', type: 'query', body: 'query A { a } query B { b }' }]),
      'operation 0 (a) is not a GraphQL operation: it must hold exactly one operation',
    ],
  ])('refuses %j', (value, problem) => {
    expect(() => checkManifest(value, 'm.json')).toThrow(`configuration: GRAPHQL_PERSISTED_OPERATIONS_MANIFEST (m.json) ${problem}`);
  });
});
