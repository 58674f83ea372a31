import { describe, expect, it } from 'vitest';
import { SnapshotLineDecoder } from '../../../src/dynamic-config/snapshot/lines.js';

// A path's canonical JSON can be longer than its bytes as written: each byte of invalid UTF-8
// decodes to U+FFFD, three bytes in JSON.stringify's text. The decoder's path-from-bytes
// shortcut must not read past the body for it (it did: RangeError, a 500 for the PUT).
const bad = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]);

describe('snapshot line decoder: invalid UTF-8 in a path', () => {
  it('decodes a last line whose canonical path is longer than its bytes as a decoding of its text does', () => {
    const body = Buffer.concat([Buffer.from('["version"]\t"v1"\n'), Buffer.concat([Buffer.from('["'), bad, Buffer.from('",""]\t1')])]);
    expect(new SnapshotLineDecoder().decode(body).value).toEqual({ version: 'v1', ['\ufffd'.repeat(5)]: { '': 1 } });
  });
});

// The decoder keeps a tree of the objects its paths run through between bodies.
// Format 2 allows any split ("any split is valid"), so a sender may write a record field by field;
// when records come and go (names with hashes, as the operator's), the tree must not keep a node
// for every record name ever seen.

interface Node { children: Map<string, Node> }

function nodes(decoder: SnapshotLineDecoder): number {
  const root = (decoder as unknown as { root: Node }).root;
  let n = 0;
  const walk = (c: Node) => {
    n++;
    for (const child of c.children.values()) walk(child);
  };
  walk(root);
  return n;
}

describe('snapshot line decoder memory', () => {
  it('does not keep a node per record name ever seen when records are written field by field', () => {
    const decoder = new SnapshotLineDecoder();
    const body = (from: number) => {
      const lines: string[] = [];
      for (let i = from; i < from + 10; i++) {
        lines.push(`${JSON.stringify(['configuration', 'http', 'routers', `r${i}`, 'rule'])}\t${JSON.stringify(`Host(\`h${i}\`)`)}`);
        lines.push(`${JSON.stringify(['configuration', 'http', 'routers', `r${i}`, 'service'])}\t"s"`);
      }
      return lines.join('\n');
    };
    for (let step = 0; step < 500; step++) decoder.commit(decoder.decode(body(step * 10)));
    // The last body has 10 records: root, configuration, http, routers and 10 record nodes.
    expect(nodes(decoder)).toBeLessThan(100);
    // Names seen long ago come back as from scratch, next to the ones held.
    const again = `${body(4990)}\n${body(0)}`;
    const decoded = decoder.decode(again);
    expect(JSON.stringify(decoded.value)).toBe(JSON.stringify(new SnapshotLineDecoder().decode(again).value));
    decoder.commit(decoded);
    expect(JSON.stringify(decoder.decode(body(0)).value)).toBe(JSON.stringify(new SnapshotLineDecoder().decode(body(0)).value));
  });
});
