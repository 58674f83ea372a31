import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { rawSend, startPushgateway, type PeerResponse, type PushgatewayPeer } from '../pushgateway/peer-processes.js';

/**
 * The web console lists labels as Pushgateway 1.11.1's console does: a group's grouping labels
 * with `job` first and the rest in byte order of their names, each series' labels in byte order
 * (grouping labels and instance="" merged in), and UTF-8 label names quoted. Both consoles are
 * read from their HTML; the markup differs, the sequences of label badges must not.
 */
let pg: PushgatewayPeer | undefined;
let portico: (Harness & { url: string }) | undefined;

beforeAll(async () => {
  pg = await startPushgateway(['--push.enable-utf8-names']);
  portico = await listenGateway(['--push.enable-utf8-names'], TestClock.real());
});

afterAll(async () => {
  await pg?.stop();
  await portico?.app.close();
});

type Send = (method: string, path: string, body?: string) => Promise<PeerResponse>;

function sides(): [string, Send][] {
  const p = pg as PushgatewayPeer;
  const url = (portico as { url: string }).url;
  return [
    ['pushgateway', (m, path, b) => p.send(m, path, b)],
    ['portico', (m, path, b) => rawSend(url, m, path, b)],
  ];
}

/** The entities Go's html/template and Portico's escaper produce. */
function unescapeHtml(s: string): string {
  return s.replace(/&(#\d+|amp|lt|gt|quot);/g, (_m, e: string) =>
    e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ({ amp: '&', lt: '<', gt: '>', quot: '"' } as Record<string, string>)[e] ?? '',
  );
}

function badges(fragment: string): string[] {
  return [...fragment.matchAll(/<span class="(?:badge[^"]*|label)">([^<]*)<\/span>/g)].map((m) => unescapeHtml(m[1] as string));
}

interface ConsoleView {
  /** Each group's header badges, in page order. */
  readonly groups: string[][];
  /** Every series row's label badges, joined; sorted, since the two order families differently. */
  readonly rows: string[];
}

function pushgatewayView(html: string): ConsoleView {
  const groups = [...html.matchAll(/id="group-panel-\d+">([\s\S]*?)<\/button>/g)].map((m) => badges(m[1] as string));
  const rows = [...html.matchAll(/<tr>\s*<td>([\s\S]*?)<\/td>/g)].map((m) => badges(m[1] as string).join(' '));
  return { groups, rows: rows.sort() };
}

function porticoView(html: string): ConsoleView {
  const groups = [...html.matchAll(/<summary><span class="labels">([\s\S]*?)<\/span>\n<span class="meta/g)].map((m) => badges(m[1] as string));
  const rows = [...html.matchAll(/<tr><td>([\s\S]*?)<\/td><td class="value">/g)].map((m) => badges(m[1] as string).join(' '));
  return { groups, rows: rows.sort() };
}

const PUSHES: [string, string][] = [
  // `app` and `a_b` sort before `job`; `instance` is a URL label here; `Zone` sorts before `app` in byte order.
  ['/metrics/job/batch/zone/eu/app/web/instance/i-1/Zone/x/a_b/c', 'g{z="1",b="2",a="3",A="4"} 1\nh 2\n'],
  // No instance in the URL: instance="" merged into every series; a series' own instance kept.
  ['/metrics/job/other/beta/2/alpha/1', 'g{instance="own",k="v"} 3\ng{k="w"} 4\n'],
  // UTF-8 label names, escaped in the URL and quoted in the body, shown quoted.
  ['/metrics/job/utf/U__zone_2e_name/eu/U__0_9_x/y', '{"g", "my.label"="a", "b"="c"} 5\n'],
];

describe('console label order, side by side with Pushgateway 1.11.1', () => {
  it('lists group and series labels in the same order', async () => {
    const views: ConsoleView[] = [];
    for (const [name, send] of sides()) {
      for (const [path, body] of PUSHES) {
        const res = await send('PUT', path, body);
        expect(res.status, `${name} PUT ${path}: ${res.text}`).toBe(200);
      }
      const page = await send('GET', '/');
      expect(page.status, `${name} GET /: ${page.text.slice(0, 300)}`).toBe(200);
      views.push(name === 'pushgateway' ? pushgatewayView(page.text) : porticoView(page.text));
    }
    const [want, got] = views as [ConsoleView, ConsoleView];
    // The extraction found what was pushed (a regex that matched nothing would compare equal).
    expect(want.groups).toHaveLength(3);
    expect(want.groups).toContainEqual(['job="batch"', 'Zone="x"', 'a_b="c"', 'app="web"', 'instance="i-1"', 'zone="eu"']);
    expect(want.rows).toContain('A="4" Zone="x" a="3" a_b="c" app="web" b="2" instance="i-1" job="batch" z="1" zone="eu"');
    expect(want.rows.some((r) => r.includes('"my.label"="a"'))).toBe(true);
    // Each group's two push-time gauges and its pushed series.
    expect(want.rows).toHaveLength(3 * 2 + 2 + 2 + 1);
    expect(got.groups).toEqual(want.groups);
    expect(got.rows).toEqual(want.rows);
  });
});
