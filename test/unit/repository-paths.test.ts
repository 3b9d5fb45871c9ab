import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The map stays true to the tree (issue 37, item 4): every repository path that a README or a comment names exists, and
 * every file of a folder that has a README is named in that README. A file that moves without its mentions, or a file
 * added to a documented folder without a line about it, fails here, naming the README or comment and the path.
 *
 * What counts as a repository path: a name with a slash whose first segment is one of the repository's top-level
 * entries (`gateway/create-gateway.ts`, `test/support/`), or a path with one of the repository's file extensions
 * resolved from the naming file's folder (`stand-ins/rest-fast-path.ts` in rest-adapter/README.md), or a bare file name
 * with one of those extensions (`eventually.ts`), which must exist somewhere in the tree. URLs, globs and placeholders
 * (`*`, `{…}`, `<…>`, `…`) are not paths; `dist/…` names the build of a source (`dist/bin/start.js` ↔ `bin/start.ts`);
 * `node_modules/…` and `data/…` are what an install and a run make.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', '.scratch']);
/** What a path with a slash may end in to count as one of the repository's files. */
const EXTENSIONS = /\.(?:ts|md|graphql|proto|json|js|mjs|cjs|binpb|yaml|yml|sql|cfg|sh|png|jpg|gif|webp|mp4|pem)$/;
/** A bare file name checked anywhere in the tree: ours are kebab-case TypeScript and Markdown (a library's are not). */
const BARE_NAME = /^[a-z0-9]+(?:[-.][a-z0-9]+)*\.(?:ts|md)$/;
/** The spec and references beside the repository (../shared), named by the files that follow them. */
const SHARED_DOCUMENTS = new Set([
  'service-interface.md',
  'conventions.md',
  'user-records.md',
  'social-graph.md',
  'media-upload.md',
  'federation.md',
]);
/** The packages package.json names: `jsonwebtoken/verify.js` is a package's file. */
const PACKAGES: ReadonlySet<string> = new Set(
  Object.keys({
    ...(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies,
    ...(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: object }).devDependencies,
  }),
);
/** Source folders whose comments are read (READMEs are read everywhere). */
const COMMENTED = ['bin', 'gateway', 'lib', 'rest-adapter', 'schema', 'subgraphs', 'bench', 'contracts', 'examples', 'test', 'proto'];

/** Every file under `folder` (relative to `root`, forward slashes), skipping what an install, a build or a run makes. */
function filesUnder(root: string, folder = ''): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : filesUnder(root, path);
    return [path];
  });
}

/** The comments of a TypeScript file, found by the compiler's parser (a glob or a URL in a string is not a comment). */
export function commentsOf(source: string): string {
  const file = ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const seen = new Set<number>();
  const found: string[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      found.push(source.slice(range.pos, range.end));
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(source, node.pos));
    take(ts.getTrailingCommentRanges(source, node.end));
    node.forEachChild(visit);
  };
  visit(file);
  take(ts.getLeadingCommentRanges(source, file.endOfFileToken.pos));
  return found.join('\n');
}

/** The path-like names in `text`: with a slash or with a file extension; URLs, globs, calls and placeholders left out. */
export function namedPaths(text: string): string[] {
  const withoutUrls = text.replace(/\b[a-z][\w+.-]*:\/\/\S+/gi, ' ');
  const names = new Set<string>();
  for (const match of withoutUrls.matchAll(/(?<![\w.@/$~-])((?:\.{1,2}\/)*@?[\w.-]+(?:\/[\w@.-]+)*\/?)/g)) {
    const name = match[1]!.replace(/[.,;:]+$/, '');
    const next = withoutUrls[match.index + match[1]!.length] ?? '';
    // A glob, a placeholder, a template or a call goes on past the name: not a path of the tree.
    if (/[*{<…$(]/.test(next)) continue;
    if (!name.includes('/') && !/\.[a-z]+$/.test(name)) continue;
    // A bare extension (`.test.ts`, `.json`) or a dotfile's name is a kind of file, not a file of the tree.
    if (!name.includes('/') && name.startsWith('.')) continue;
    if (/^\.+\/?$/.test(name) || /^\d/.test(name)) continue;
    names.add(name);
  }
  return [...names];
}

interface Tree {
  files: ReadonlySet<string>;
  folders: ReadonlySet<string>;
  basenames: ReadonlySet<string>;
  topLevel: ReadonlySet<string>;
  /** What a .gitignore makes (a run's output): named, but not in a clean tree. */
  ignored: readonly string[];
}

function treeOf(root: string): Tree {
  const files = filesUnder(root);
  const folders = new Set<string>();
  for (const file of files) for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) folders.add(dir);
  const ignored = files
    .filter((file) => posix.basename(file) === '.gitignore')
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#') && !line.includes('*'))
        .map((line) => posix.join(posix.dirname(file), line).replace(/^\.\//, '')),
    );
  return {
    files: new Set(files),
    folders,
    basenames: new Set(files.map((file) => posix.basename(file))),
    topLevel: new Set(readdirSync(root).filter((name) => !SKIPPED_FOLDERS.has(name))),
    ignored,
  };
}

/**
 * Whether `name`, named in a file of folder `from` ('' at the root), is in the tree: true or false, or undefined when
 * it is not a path of the repository (a package's file, a run's output, the shared documents, a MIME type, a route).
 */
function resolves(tree: Tree, from: string, name: string): boolean | undefined {
  const exists = (path: string): boolean | undefined => {
    const clean = posix.normalize(path).replace(/\/$/, '');
    if (clean === '..' || clean.startsWith('../')) return undefined; // outside the repository: the shared documents
    if (tree.ignored.some((ignored) => clean === ignored.replace(/\/$/, '') || clean.startsWith(ignored.replace(/\/?$/, '/'))))
      return undefined;
    // A test named by its stem (test/e2e/live/live-stream-memory) is its file.
    return tree.folders.has(clean) || tree.files.has(clean) || tree.files.has(`${clean}.test.ts`);
  };
  if (name.startsWith('@')) {
    // curl's `-F media=@examples/photo.jpg` names a file of ours; `@apollo/gateway/dist/…` a package's.
    return tree.topLevel.has(name.slice(1).split('/')[0]!) ? exists(name.slice(1)) : undefined;
  }
  const first = name.replace(/^(?:\.\.?\/)+/, '').split('/')[0]!;
  if (first === 'node_modules' || first === 'data' || name.startsWith('/') || PACKAGES.has(first)) return undefined;
  if (first === 'dist') {
    // The build of a source of ours (dist/bin/start.js ↔ bin/start.ts); otherwise a package's dist or a build's output.
    const source = name.replace(/^dist\//, '').replace(/\.js$/, '.ts');
    return tree.topLevel.has(source.split('/')[0]!) && source.includes('/') ? exists(source) : undefined;
  }
  if (!name.includes('/')) {
    if (SHARED_DOCUMENTS.has(name) || !BARE_NAME.test(name)) return undefined;
    return tree.basenames.has(name) || exists(posix.join(from, name)) === true;
  }
  const beside = exists(posix.join(from, name));
  if (beside !== false) return beside;
  if (!name.startsWith('.') && tree.topLevel.has(first)) return exists(name);
  // A path with a slash that is neither under a top-level entry nor found beside the file is one of ours only if it ends
  // in one of our extensions and is found under some folder (`social-graph/social.routes.ts`); a MIME type is not.
  if (!EXTENSIONS.test(name) || name.startsWith('.')) return undefined;
  return [...tree.folders].some((dir) => exists(posix.join(dir, name)) === true);
}

/** Paths named in READMEs and comments that are not in the tree: `file: path`. */
export function brokenPaths(root: string): string[] {
  const tree = treeOf(root);
  const named = [...tree.files].filter(
    (file) =>
      posix.basename(file) === 'README.md' ||
      (file.endsWith('.ts') && COMMENTED.includes(file.split('/')[0]!) && !file.includes('/generated/') && !file.includes('/fixtures/')),
  );
  return named.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const from = posix.dirname(file) === '.' ? '' : posix.dirname(file);
    return namedPaths(file.endsWith('.md') ? text : commentsOf(text)).flatMap((name) =>
      resolves(tree, from, name) === false ? [`${file}: ${name}`] : [],
    );
  });
}

/** Files of a folder with a README that the README does not name: `README: file`. */
export function unlistedFiles(root: string): string[] {
  const tree = treeOf(root);
  return [...tree.files]
    .filter((file) => posix.basename(file) === 'README.md')
    .flatMap((readme) => {
      const folder = posix.dirname(readme);
      const text = readFileSync(join(root, readme), 'utf8');
      return readdirSync(join(root, folder))
        .filter((name) => name !== 'README.md' && !SKIPPED_FOLDERS.has(name) && statSync(join(root, folder, name)).isFile())
        .filter((name) => !new RegExp(`(?<![\\w.-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text))
        .map((name) => `${readme}: ${name}`);
    });
}

// Each test reads the whole tree (about a second here, several on a loaded CI machine): its work, not a bound on it.
describe('the map and the tree', { timeout: 30_000 }, () => {
  let broken: string[] | undefined;
  const brokenHere = () => (broken ??= brokenPaths(ROOT));

  it('every repository path a README or a comment names exists', () => {
    expect(brokenHere()).toEqual([]);
  });

  it('every file of a folder with a README is named in it', () => {
    expect(unlistedFiles(ROOT)).toEqual([]);
  });

  it('fails on a broken copy: a README naming a missing file, a comment naming a moved one, a file the README leaves out', () => {
    // Two folders and package.json, not the whole tree: a copy of all of it took 5 s on a loaded CI machine. The faults
    // are read as the difference they make, so what the two folders name elsewhere does not matter.
    const copy = mkdtempSync(join(tmpdir(), 'tributary-paths-'));
    try {
      for (const part of ['gateway', 'rest-adapter', 'package.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      const before = new Set(brokenPaths(copy));
      expect(unlistedFiles(copy)).toEqual([]);
      writeFileSync(
        join(copy, 'gateway/README.md'),
        `${readFileSync(join(copy, 'gateway/README.md'), 'utf8')}\nSee gateway/no-such-file.ts.\n`,
      );
      writeFileSync(join(copy, 'gateway/new-thing.ts'), '// Moved from rest-adapter/stand-ins/gone-away.ts.\nexport {};\n');
      expect(brokenPaths(copy).filter((entry) => !before.has(entry))).toEqual([
        'gateway/README.md: gateway/no-such-file.ts',
        'gateway/new-thing.ts: rest-adapter/stand-ins/gone-away.ts',
      ]);
      expect(unlistedFiles(copy)).toEqual(['gateway/README.md: new-thing.ts']);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('reads names, not URLs, globs, calls or placeholders; comments, not strings', () => {
    expect(
      namedPaths(
        'See gateway/create-gateway.ts, `test/e2e/live/`, eventually.ts and https://example.com/a/b.ts; not test/e2e/hostile-*.test.ts, express.json(), {id}/x or application/json',
      ).sort(),
    ).toEqual(['application/json', 'eventually.ts', 'gateway/create-gateway.ts', 'test/e2e/live/']);
    expect(commentsOf("const glob = 'lib/**/*.ts'; // the lib's files\n/** Made in gateway/x.ts. */\nexport {};\n")).toBe(
      "// the lib's files\n/** Made in gateway/x.ts. */",
    );
  });
});
