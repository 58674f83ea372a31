import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * The checks behind test/docs/links.test.ts: relative links of the repository's Markdown files
 * must reach an existing file, `#anchors` must match a heading of the target as GitHub renders
 * them, and no doc may name a path outside the repository (a reader of the repository cannot
 * follow it).
 */

/** Text outside fenced code blocks, with each line's number; code blocks hold no links or headings. */
export function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0] as string;
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line: index + 1, text });
  });
  return out;
}

/** GitHub's heading slug: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading counts by its text
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a Markdown file's headings give, duplicates numbered `-1`, `-2` as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!m) continue;
    const base = githubSlug(m[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface MarkdownLink {
  readonly line: number;
  readonly target: string;
}

/** Inline links `[text](target)` and images, outside code blocks and code spans. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: m[1] as string });
    }
  }
  return links;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Paths a doc must not name: the workspace around the repository. */
const OUTSIDE_NAMES = [/\.\.\/shared\b/, /(?:^|[\s`(])\/work\//];

/**
 * Problems in one Markdown file of the repository rooted at `root`, one line each
 * (`README.md:12: ...`); empty when every link and anchor resolves.
 */
export function checkMarkdownFile(root: string, file: string): string[] {
  const markdown = readFileSync(file, 'utf8');
  const name = relative(root, file);
  const problems: string[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const pattern of OUTSIDE_NAMES) {
      if (pattern.test(text)) problems.push(`${name}:${index + 1}: names a path outside the repository: ${text.trim()}`);
    }
  });
  problems.push(...namedPathProblems(root, name, markdown));
  for (const { line, target } of markdownLinks(markdown)) {
    if (EXTERNAL.test(target)) continue;
    const problem = checkTarget(root, file, target);
    if (problem) problems.push(`${name}:${line}: ${target}: ${problem}`);
  }
  return problems;
}

function checkTarget(root: string, file: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  if (isAbsolute(pathPart)) return 'absolute path; link relative to the file';
  const targetFile = pathPart === '' ? file : resolve(dirname(file), pathPart);
  const fromRoot = relative(root, targetFile);
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) return 'points outside the repository';
  if (!existsSync(targetFile)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(targetFile).isDirectory() || !targetFile.endsWith('.md')) return 'anchor into something that is not a Markdown file';
  if (!headingAnchors(readFileSync(targetFile, 'utf8')).has(anchor)) return `no heading with anchor #${anchor}`;
  return undefined;
}

/** A repository path named in prose or code (`src/search/query/bm25.ts`, `test/e2e/`, `docs/helm.md`). */
const NAMED_PATH = /(?<![\w./-])((?:src|test|bench|scripts|charts|crds|examples|docs)\/[A-Za-z0-9_./-]*)/g;

/**
 * Paths of the repository that a doc names, in its prose or its code spans, and that do not exist:
 * a moved or renamed file leaves its docs pointing at nothing, and no link check sees a code span.
 */
export function namedPathProblems(root: string, name: string, markdown: string): string[] {
  const problems: string[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const match of text.matchAll(NAMED_PATH)) {
      const path = (match[1] as string).replace(/[.-]+$/, ''); // a sentence's full stop is not part of it
      const next = text[(match.index ?? 0) + match[0].length];
      if (next !== undefined && '*<{'.includes(next)) continue; // a pattern (`bench/search-*.ts`), not a path
      if (path.startsWith('docs/') && !/\.md$|\/$/.test(path)) continue; // "docs/s" is a rate, not a file
      if (!existsSync(resolve(root, path))) problems.push(`${name}:${index + 1}: names ${path}, which does not exist`);
    }
  });
  return problems;
}
