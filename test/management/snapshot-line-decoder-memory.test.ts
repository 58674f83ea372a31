import { describe, expect, it } from 'vitest';
import { SnapshotLineDecoder } from '../../src/dynamic-config/snapshot/lines.js';

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
