import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMarkdownFile, githubSlug, headingAnchors, markdownLinks, namedPathProblems } from './markdown-links.js';

const root = resolve(import.meta.dirname, '../..');

/** The repository's documentation: what a reader follows links through. */
function docFiles(): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'charts/portico/README.md'];
  const docsDir = join(root, 'docs');
  if (existsSync(docsDir)) files.push(...readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`));
  return files.filter((f) => existsSync(join(root, f)));
}

describe('documentation links', () => {
  it('finds the docs to check', () => {
    expect(docFiles()).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docs/architecture.md']));
  });

  for (const file of docFiles()) {
    it(`${file}: every relative link and anchor resolves, and nothing outside the repository is named`, () => {
      expect(checkMarkdownFile(root, join(root, file))).toEqual([]);
    });
  }
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };

  it('makes GitHub slugs', () => {
    expect(githubSlug('Multi-get: `_mget`')).toBe('multi-get-_mget');
    expect(githubSlug('Scroll and point in time')).toBe('scroll-and-point-in-time');
    expect(githubSlug('Reference options (Traefik\'s `allowCrossNamespace`)')).toBe('reference-options-traefiks-allowcrossnamespace');
    expect(githubSlug('Push gateway (port 9091)')).toBe('push-gateway-port-9091');
    expect(githubSlug('A [linked](other.md) heading')).toBe('a-linked-heading');
  });

  it('numbers repeated headings and ignores headings inside code blocks', () => {
    const anchors = headingAnchors('# Flags\n\n## Flags\n\n```sh\n# not a heading\n```\n### Flags\n');
    expect([...anchors]).toEqual(['flags', 'flags-1', 'flags-2']);
  });

  it('ignores links in code spans and code blocks', () => {
    const links = markdownLinks('see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n![img](d.png "title")\n');
    expect(links.map((l) => l.target)).toEqual(['a.md', 'd.png']);
  });

  it('accepts good links and anchors', () => {
    write('good/target.md', '# Title\n\n## Flags\n\n## Flags\n');
    const file = write('good/source.md', '[t](target.md) [f](target.md#flags-1) [self](#here) [web](https://example.com/x#y)\n\n## Here\n');
    expect(checkMarkdownFile(dir, file)).toEqual([]);
  });

  it('reports a link to a missing file', () => {
    const file = write('bad/missing.md', 'See [the guide](guide.md).\n');
    expect(checkMarkdownFile(dir, file)).toEqual(['bad/missing.md:1: guide.md: no such file']);
  });

  it('reports an anchor that matches no heading, in the file or in another', () => {
    write('bad/other.md', '# Other\n\n## Benchmark\n');
    const file = write('bad/anchors.md', '# Top\n\n[a](#nowhere)\n[b](other.md#benchmark-2)\n[c](other.md#benchmark)\n');
    expect(checkMarkdownFile(dir, file)).toEqual([
      'bad/anchors.md:3: #nowhere: no heading with anchor #nowhere',
      'bad/anchors.md:4: other.md#benchmark-2: no heading with anchor #benchmark-2',
    ]);
  });

  it('reports links and names outside the repository', () => {
    const file = write('bad/outside.md', 'Read [this](../../elsewhere.md).\nAs ../shared/ARCHITECTURE.md says.\nThe data in /work/shared/data.\n');
    const problems = checkMarkdownFile(join(dir, 'bad'), file);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('names a path outside the repository');
    expect(problems[1]).toContain('names a path outside the repository');
    expect(problems[2]).toBe('outside.md:1: ../../elsewhere.md: points outside the repository');
  });

  it('reports a repository path that a doc names but that does not exist', () => {
    write('named/src/here.ts', '');
    write('named/test/kept.test.ts', '');
    const markdown = 'The parser is `src/here.ts`; the old one was src/gone.ts.\nSee src/<area>/errors.ts, `bench/search-*.ts`, 5,000 docs/s and `test/`.\n';
    expect(namedPathProblems(join(dir, 'named'), 'doc.md', markdown)).toEqual(['doc.md:1: names src/gone.ts, which does not exist']);
  });
});
