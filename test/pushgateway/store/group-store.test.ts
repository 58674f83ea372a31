import { describe, expect, it, vi } from 'vitest';
import { ConsistencyError } from '../../../src/pushgateway/errors.js';
import type { Group, PushRequest } from '../../../src/pushgateway/store/group.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import type { Label, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';
import type { GroupFamily, StoredMetric } from '../../../src/pushgateway/store/stored-family.js';

const T0 = 1_700_000_000_000;

function gauge(name: string, value: number, labels: Label[] = [], help?: string): MetricFamily {
  return { name, help, type: 'gauge', metrics: [{ labels, value }] };
}

function fam(name: string, type: MetricType, metrics: MetricFamily['metrics'], help?: string): MetricFamily {
  return { name, help, type, metrics };
}

function req(job: string, families: MetricFamily[], extra: Partial<PushRequest> = {}, labels: Label[] = []): PushRequest {
  return { grouping: [['job', job], ...labels], families, replace: false, nowMs: T0, ...extra };
}

function text(store: InMemoryGroupStore, nowMs = T0): string {
  return store
    .rendered(nowMs)
    .map((f) => f.text)
    .join('');
}

function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConsistencyError);
    return (err as Error).message;
  }
  throw new Error('expected the push to be refused');
}

describe('InMemoryGroupStore: Pushgateway semantics', () => {
  it('sanitizes labels: grouping labels overwrite or are appended, instance="" added, sorted', () => {
    const store = new InMemoryGroupStore();
    store.push(req('conf', [gauge('conf', 1, [['other', 'z'], ['job', 'xx'], ['inst', 'yy']])], {}, [['inst', 'real']]));
    expect(text(store)).toContain('conf{inst="real",instance="",job="conf",other="z"} 1\n');
    expect(text(store)).toContain('push_time_seconds{inst="real",instance="",job="conf"} 1.7e+09\n');
    expect(text(store)).toContain('push_failure_time_seconds{inst="real",instance="",job="conf"} 0\n');
  });

  it('keeps an instance label from the body when instance is not in the grouping key', () => {
    const store = new InMemoryGroupStore();
    store.push(req('j', [gauge('m', 1, [['instance', 'fromBody']])]));
    expect(text(store)).toContain('m{instance="fromBody",job="j"} 1\n');
  });

  it('POST replaces only the pushed families, as whole families', () => {
    const store = new InMemoryGroupStore();
    store.push(req('j', [gauge('a', 1), gauge('b', 2)]));
    store.push(req('j', [gauge('b', 3, [['x', '1']])]));
    const t = text(store);
    expect(t).toContain('a{instance="",job="j"} 1\n');
    expect(t).toContain('b{instance="",job="j",x="1"} 3\n');
    expect(t).not.toContain('b{instance="",job="j"} 2');
  });

  it('keeps a family\'s metrics in push order for the API, console and persistence; the exposition sorts them', () => {
    const store = new InMemoryGroupStore();
    const values = (): string[] => [...(store.get([['job', 'j']], T0)?.families.get('m')?.family.metrics ?? [])].map((m) => `${m.labels[0]?.[1]}=${m.value}`);
    const push = (order: string[], value: number) =>
      store.push(req('j', [fam('m', 'gauge', order.map((a) => ({ labels: [['a', a]], value })))]));
    push(['2', '1', '3'], 1);
    expect(values()).toEqual(['2=1', '1=1', '3=1']);
    expect(text(store)).toContain('m{a="1",instance="",job="j"} 1\nm{a="2",instance="",job="j"} 1\nm{a="3",instance="",job="j"} 1\n');
    // A re-push of the same series (updated in place) in another order takes that order.
    push(['3', '2', '1'], 2);
    expect(values()).toEqual(['3=2', '2=2', '1=2']);
    push(['1', '2', '3'], 3);
    expect(values()).toEqual(['1=3', '2=3', '3=3']);
    push(['3', '1', '2'], 4);
    const copy = new InMemoryGroupStore();
    copy.load(store.groups(T0));
    expect([...(copy.get([['job', 'j']], T0)?.families.get('m')?.family.metrics ?? [])].map((m) => m.labels[0]?.[1])).toEqual(['3', '1', '2']);
    expect(text(copy)).toBe(text(store));
  });

  it('PUT replaces the group; an empty PUT keeps the group with its push times', () => {
    const store = new InMemoryGroupStore();
    store.push(req('j', [gauge('a', 1), gauge('b', 2)]));
    store.push(req('j', [gauge('b', 3)], { replace: true, nowMs: T0 + 1000 }));
    expect(text(store)).not.toContain('a{');
    store.push(req('j', [], { replace: true, nowMs: T0 + 2000 }));
    expect(store.groups(T0)).toHaveLength(1);
    expect(text(store)).toBe(
      '# HELP push_failure_time_seconds Last Unix time when changing this group in the Pushgateway failed.\n' +
        '# TYPE push_failure_time_seconds gauge\npush_failure_time_seconds{instance="",job="j"} 0\n' +
        '# HELP push_time_seconds Last Unix time when changing this group in the Pushgateway succeeded.\n' +
        '# TYPE push_time_seconds gauge\npush_time_seconds{instance="",job="j"} 1.700000002e+09\n',
    );
  });

  it('DELETE removes exactly the group with that grouping key', () => {
    const store = new InMemoryGroupStore();
    store.push(req('x', [gauge('a', 1)]));
    store.push(req('x', [gauge('a', 2)], {}, [['instance', 'y']]));
    expect(store.delete([['job', 'x']], T0)).toBe(true);
    expect(store.groups(T0).map((g) => g.labels)).toEqual([[['instance', 'y'], ['job', 'x']]]);
    expect(store.delete([['job', 'x']], T0)).toBe(false);
  });

  it('refuses timestamps and records the failure, creating the group with push_time_seconds 0', () => {
    const store = new InMemoryGroupStore();
    const msg = refused(() => store.push(req('new', [{ name: 'm', help: undefined, type: 'gauge', metrics: [{ labels: [], value: 1, timestampMs: 5 }] }])));
    expect(msg).toBe('pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps');
    const g = store.groups(T0)[0];
    expect(g?.pushTimeSeconds).toBe(0);
    expect(g?.pushFailureTimeSeconds).toBe(T0 / 1000);
    expect(g?.families.size).toBe(0);
  });

  it('refuses a type conflict across groups and leaves the group as it was', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)]));
    store.push(req('b', [gauge('other', 7)]));
    const snapshot = (g: Group | undefined) => [...(g?.families ?? [])].map(([name, s]) => [name, s.family, s.pushedAtMs]);
    const before = snapshot(store.groups(T0)[1]);
    const msg = refused(() =>
      store.push(req('b', [fam('m', 'counter', [{ labels: [], value: 42 }]), gauge('other', 8)], { nowMs: T0 + 5000 })),
    );
    expect(msg).toMatch(/^pushed metrics are invalid or inconsistent with existing metrics: collected metric "m" .* is not a GAUGE/);
    expect(msg).toContain('COUNTER');
    const b = store.groups(T0 + 5000)[1];
    expect(snapshot(b)).toEqual(before);
    expect(b?.pushFailureTimeSeconds).toBe(T0 / 1000 + 5);
    expect(text(store, T0 + 5000)).toContain('other{instance="",job="b"} 7\n');
  });

  it('lets a group change the type of a family only it holds', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)]));
    store.push(req('a', [fam('m', 'counter', [{ labels: [], value: 2 }])]));
    expect(text(store)).toContain('# TYPE m counter\nm{instance="",job="a"} 2\n');
  });

  it('forgets families a PUT removed, so another group may use the name with another type', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)]));
    store.push(req('a', [gauge('n', 1)], { replace: true }));
    store.push(req('b', [fam('m', 'counter', [{ labels: [], value: 2 }])]));
    expect(text(store)).toContain('# TYPE m counter\n');
  });

  it('refuses a series another group already holds', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('d', 1, [['x', '1']])]));
    const msg = refused(() => store.push(req('a', [gauge('d', 2)], {}, [['x', '1']])));
    expect(msg).toContain('collected metric "d" {instance="",job="a",x="1"} was collected before with the same name and label values');
  });

  it('refuses the same series twice in one push', () => {
    const store = new InMemoryGroupStore();
    const msg = refused(() => store.push(req('a', [fam('d', 'gauge', [{ labels: [['x', '1']], value: 1 }, { labels: [['x', '1']], value: 2 }])])));
    expect(msg).toContain('was collected before with the same name and label values');
  });

  it('refuses summary and histogram suffix collisions in both directions', () => {
    const summary = fam('sx', 'summary', [{ labels: [], summary: { sampleCount: 1, sampleSum: 2, quantiles: [] } }]);
    const histogram = fam('hx', 'histogram', [{ labels: [], histogram: { sampleCount: 1, sampleSum: 2, buckets: [{ upperBound: Infinity, cumulativeCount: 1 }] } }]);
    const store = new InMemoryGroupStore();
    store.push(req('a', [summary, histogram]));
    expect(refused(() => store.push(req('b', [gauge('sx_count', 1)])))).toContain('collected metric named "sx_count" collides with previously collected summary named "sx"');
    expect(refused(() => store.push(req('b', [gauge('hx_bucket', 1)])))).toContain('collides with previously collected histogram named "hx"');
    store.push(req('b', [gauge('sx_bucket', 1)]));
    store.push(req('c', [gauge('yy_sum', 1)]));
    const s2 = fam('yy', 'summary', [{ labels: [], summary: { sampleCount: 1, sampleSum: 2, quantiles: [] } }]);
    expect(refused(() => store.push(req('d', [s2])))).toContain('"yy_sum"');
  });

  it('refuses families colliding with the gateway\'s own metric types', () => {
    const store = new InMemoryGroupStore({ ownTypes: new Map([['process_open_fds', 'gauge' as const]]) });
    expect(refused(() => store.push(req('a', [fam('process_open_fds', 'counter', [{ labels: [], value: 1 }])])))).toContain(
      'gathered metric family process_open_fds has type COUNTER but should have GAUGE',
    );
  });

  it('refuses invalid names, reserved labels and values that do not match the type', () => {
    const store = new InMemoryGroupStore();
    expect(refused(() => store.push(req('a', [gauge('', 1)])))).toContain('metric name "" is not valid');
    expect(refused(() => store.push(req('a', [gauge('m', 1, [['bad-label', 'v']])])))).toContain('has a label with an invalid name: bad-label');
    expect(refused(() => store.push(req('a', [gauge('m', 1, [['__x', 'v']])])))).toContain('invalid name: __x');
    expect(refused(() => store.push(req('a', [gauge('m', 1, [['a', '1'], ['a', '2']])])))).toContain('two or more labels with the same name: a');
    expect(refused(() => store.push(req('a', [fam('s', 'summary', [{ labels: [['quantile', '1']], summary: { sampleCount: 0, sampleSum: 0, quantiles: [] } }])])))).toContain(
      '"quantile"',
    );
    expect(refused(() => store.push(req('a', [fam('h', 'histogram', [{ labels: [['le', '1']], histogram: { sampleCount: 0, sampleSum: 0, buckets: [] } }])])))).toContain('"le"');
    expect(refused(() => store.push(req('a', [fam('c', 'counter', [{ labels: [], summary: { sampleCount: 0, sampleSum: 0, quantiles: [] } }])])))).toContain('is not a COUNTER');
    expect(refused(() => store.push(req('a', [gauge('m', 1, [['a', 'x\uD800']])])))).toContain('is not utf8');
    expect(refused(() => store.push(req('a', [fam('push_time_seconds', 'counter', [{ labels: [], value: 1 }])])))).toContain('is not a GAUGE');
    expect(store.groups(T0).map((g) => g.families.size)).toEqual([0]);
  });

  it('takes UTF-8 metric names in any case and UTF-8 label names only with utf8Names (--push.enable-utf8-names), as Pushgateway 1.11.1', () => {
    const legacy = new InMemoryGroupStore();
    legacy.push(req('a', [gauge('my.metric', 1)]));
    expect(refused(() => legacy.push(req('b', [gauge('m', 1, [['my.label', 'v']])])))).toContain('has a label with an invalid name: my.label');
    expect(refused(() => legacy.push(req('b', [gauge('m', 1, [['a\uD800', 'v']])])))).toContain('invalid name');
    const utf8 = new InMemoryGroupStore({ utf8Names: true });
    utf8.push(req('a', [gauge('my.metric', 1, [['my.label', 'v'], ['ünï', 'w']])]));
    expect(refused(() => utf8.push(req('b', [gauge('m', 1, [['__my.label', 'v']])])))).toContain('invalid name: __my.label');
    expect(refused(() => utf8.push(req('b', [gauge('m', 1, [['a\uD800', 'v']])])))).toContain('invalid name');
    expect(utf8.rendered(T0, 'text', 'allow-utf-8').map((f) => f.text).join('')).toContain('{"my.metric",instance="",job="a","my.label"="v","ünï"="w"} 1\n');
    expect(utf8.rendered(T0, 'text', 'underscores').map((f) => f.text).join('')).toContain('my_metric{instance="",job="a",my_label="v",_n_="w"} 1\n');
    expect(utf8.rendered(T0, 'text', 'values').map((f) => f.text).join('')).toContain('U__my_2e_metric{instance="",job="a",U__my_2e_label="v",U___fc_n_ef_="w"} 1\n');
  });

  it('replaces a pushed push_time_seconds gauge with its own', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('push_time_seconds', 5)]));
    expect(text(store)).toContain('push_time_seconds{instance="",job="a"} 1.7e+09\n');
    expect(text(store)).not.toContain(' 5\n');
  });

  it('keeps an earlier failure time after a later success', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)]));
    refused(() => store.push(req('a', [gauge('m', 1, [['a', '1'], ['a', '2']])], { nowMs: T0 + 1000 })));
    store.push(req('a', [gauge('m', 2)], { nowMs: T0 + 2000 }));
    const g = store.groups(T0 + 2000)[0];
    expect(g?.pushFailureTimeSeconds).toBe(T0 / 1000 + 1);
    expect(g?.pushTimeSeconds).toBe(T0 / 1000 + 2);
  });

  it('orders families by name and metrics by label count, then label values by position', () => {
    const store = new InMemoryGroupStore();
    store.push(req('b', [gauge('x', 1)]));
    store.push(req('a', [gauge('x', 2, [['a', '2']])]));
    store.push(req('a', [gauge('w', 2, [['a', '2']])]), );
    store.push(req('c', [gauge('x', 3, [['a', '1']])]));
    const t = text(store);
    expect(t.indexOf('# TYPE w')).toBeLessThan(t.indexOf('# TYPE x'));
    const xs = t.split('\n').filter((l) => l.startsWith('x{'));
    expect(xs).toEqual(['x{instance="",job="b"} 1', 'x{a="1",instance="",job="c"} 3', 'x{a="2",instance="",job="a"} 2']);
  });

  it('resolves conflicting help deterministically: the first group in grouping-key order wins', () => {
    const store = new InMemoryGroupStore();
    store.push(req('b', [gauge('m', 1, [], 'help from b')]));
    store.push(req('a', [gauge('m', 1, [], 'help from a')]));
    store.push(req('c', [gauge('m', 1, [], 'help from c')]));
    expect(text(store)).toContain('# HELP m help from a\n');
    store.delete([['job', 'a']], T0);
    expect(text(store)).toContain('# HELP m help from b\n');
  });

  it('uses the gateway\'s own help for a pushed family with an own metric name', () => {
    const store = new InMemoryGroupStore({ ownTypes: new Map([['nodejs_x', 'gauge' as const]]), ownHelp: new Map([['nodejs_x', 'own help']]) });
    store.push(req('a', [gauge('nodejs_x', 1, [], 'pushed help')]));
    expect(text(store)).toContain('# HELP nodejs_x own help\n');
  });

  it('re-renders only what changed: a re-push of the same labels updates values in place', () => {
    const store = new InMemoryGroupStore();
    for (let i = 0; i < 50; i++) store.push(req(`j${i}`, [gauge('m', i)]));
    const before = text(store);
    store.push(req('j7', [gauge('m', 700)], { nowMs: T0 + 1 }));
    const after = text(store, T0 + 1);
    expect(after).toContain('m{instance="",job="j7"} 700\n');
    expect(after.split('\n').length).toBe(before.split('\n').length);
  });

  it('with the check disabled stores an inconsistent push and reports it until it is gone', () => {
    const store = new InMemoryGroupStore({ checkConsistency: false });
    store.push(req('a', [gauge('m', 1)]));
    const out = store.push(req('b', [fam('m', 'counter', [{ labels: [], value: 1 }])]));
    expect(out.inconsistency).toContain('is not a GAUGE');
    expect(store.inconsistency()).toContain('is not a GAUGE');
    store.push(req('c', [gauge('z', 1)]));
    expect(store.inconsistency()).toBeDefined();
    store.delete([['job', 'b']], T0);
    expect(store.inconsistency()).toBeUndefined();
  });

  it('while inconsistent, re-checks the whole store once per read of the problem, not on every write', () => {
    const store = new InMemoryGroupStore({ checkConsistency: false });
    for (let i = 0; i < 50; i++) store.push(req(`g${i}`, [gauge('m', i, [['i', `${i}`]])]));
    store.push(req('bad', [fam('m', 'counter', [{ labels: [], value: 1 }])]));
    expect(store.inconsistency()).toContain('is not a GAUGE');
    // The re-check walks every group (seconds with 20,000 of them): count how often it runs.
    const recheck = vi.spyOn(store as unknown as { recheck: () => void }, 'recheck');
    for (let i = 0; i < 20; i++) store.push(req('other', [gauge('x', i)]));
    store.delete([['job', 'g3']], T0);
    expect(recheck).toHaveBeenCalledTimes(0);
    expect(store.inconsistency()).toContain('is not a GAUGE');
    expect(store.inconsistency()).toContain('is not a GAUGE');
    expect(recheck).toHaveBeenCalledTimes(1);
    store.delete([['job', 'bad']], T0);
    expect(store.inconsistency()).toBeUndefined();
    expect(recheck).toHaveBeenCalledTimes(2);
    // Consistent again: writes need no re-check at all.
    store.push(req('other', [gauge('x', 99)]));
    expect(store.inconsistency()).toBeUndefined();
    expect(recheck).toHaveBeenCalledTimes(2);
  });

  it('with the check disabled, reports only problems the stored groups hold, as a scrape-time check would', () => {
    const store = new InMemoryGroupStore({ checkConsistency: false });
    store.push(req('a', [fam('s', 'summary', [{ labels: [], summary: { sampleCount: 1, sampleSum: 1, quantiles: [] } }])]));
    // An empty family stores nothing (it only deletes the group's family of that name).
    const out = store.push(req('b', [fam('s_sum', 'gauge', [])]));
    expect(out.inconsistency).toContain('collides with previously collected summary');
    expect(store.inconsistency()).toBeUndefined();
  });

  it("shares what one push's families have in common: equal label sets are one array, the push time one stamp", () => {
    const store = new InMemoryGroupStore();
    store.push(req('j', [gauge('a', 1, [['w', '1']]), gauge('b', 2, [['w', '1']]), gauge('c', 3, [['w', '2']])], {}, [['instance', 'i']]));
    const records = (nowMs: number) => [...(store.get([['job', 'j'], ['instance', 'i']], nowMs)?.families.values() ?? [])] as GroupFamily[];
    const [a, b, c] = records(T0) as [GroupFamily, GroupFamily, GroupFamily];
    const labels = (r: GroupFamily) => (r.list()[0] as StoredMetric).labels;
    expect(labels(a)).toEqual([['instance', 'i'], ['job', 'j'], ['w', '1']]);
    expect(labels(b)).toBe(labels(a));
    expect(labels(c)).not.toBe(labels(a));
    expect(b.pushedAt).toBe(a.pushedAt);
    // A later push of one family gets a stamp of its own; the others keep theirs.
    store.push(req('j', [gauge('b', 4, [['w', '1']])], { nowMs: T0 + 5 }, [['instance', 'i']]));
    const [a2, b2] = records(T0 + 5) as [GroupFamily, GroupFamily];
    expect([a2.pushedAtMs, b2.pushedAtMs]).toEqual([T0, T0 + 5]);
    expect(b2.pushedAt).not.toBe(a2.pushedAt);
    // A family updated in place offers its labels too: a family the same push adds takes them.
    store.push(req('j', [gauge('a', 9, [['w', '1']]), gauge('d', 5, [['w', '1']])], { nowMs: T0 + 9 }, [['instance', 'i']]));
    const [a3, , , d3] = records(T0 + 9) as [GroupFamily, GroupFamily, GroupFamily, GroupFamily];
    expect([a3.name, d3.name]).toEqual(['a', 'd']);
    expect(labels(a3)).toBe(labels(a));
    expect(labels(d3)).toBe(labels(a3));
  });

  it('keeps a pushed -0 (whole values are stored as small integers, but not -0)', () => {
    const store = new InMemoryGroupStore();
    store.push(req('j', [gauge('z', -0), gauge('w', 7)]));
    const value = (name: string) => store.families(T0).find((f) => f.name === name)?.metrics[0]?.value;
    expect(value('w')).toBe(7);
    // toBe compares with Object.is: 0 would fail.
    expect(value('z')).toBe(-0);
  });

  it('wipes everything at once', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)]));
    store.push(req('b', [gauge('m', 1)]));
    store.wipe();
    expect(store.groups(T0)).toEqual([]);
    expect(text(store)).toBe('');
    store.push(req('b', [fam('m', 'counter', [{ labels: [], value: 1 }])]));
    expect(store.seriesCount).toBe(1);
  });
});

describe('InMemoryGroupStore: TTL', () => {
  it('drops a group once its TTL has run out, from every view', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)], { ttlMs: 60_000 }));
    store.push(req('b', [gauge('m', 1)]));
    expect(store.groups(T0 + 59_999)).toHaveLength(2);
    expect(store.groups(T0 + 60_000).map((g) => g.id)).toHaveLength(1);
    expect(text(store, T0 + 60_000)).not.toContain('job="a"');
    expect(store.seriesCount).toBe(1);
  });

  it('extends the TTL on every successful push, and a push without TTL makes the group permanent', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)], { ttlMs: 10_000 }));
    store.push(req('a', [gauge('m', 2)], { ttlMs: 10_000, nowMs: T0 + 8000 }));
    expect(store.groups(T0 + 12_000)).toHaveLength(1);
    expect(store.groups(T0 + 18_000)).toHaveLength(0);
    store.push(req('b', [gauge('m', 1)], { ttlMs: 1000 }));
    store.push(req('b', [gauge('m', 1)], { nowMs: T0 + 500 }));
    expect(store.groups(T0 + 1_000_000)).toHaveLength(1);
  });

  it('gives a group created by a refused push the TTL too', () => {
    const store = new InMemoryGroupStore();
    refused(() => store.push(req('a', [{ name: 'm', help: undefined, type: 'gauge', metrics: [{ labels: [], value: 1, timestampMs: 1 }] }], { ttlMs: 5000 })));
    expect(store.groups(T0 + 4999)).toHaveLength(1);
    expect(store.groups(T0 + 5000)).toHaveLength(0);
  });

  it('honours a shorter TTL pushed later', () => {
    const store = new InMemoryGroupStore();
    store.push(req('a', [gauge('m', 1)], { ttlMs: 100_000 }));
    store.push(req('a', [gauge('m', 1)], { ttlMs: 1000, nowMs: T0 + 1 }));
    expect(store.expire(T0 + 1001)).toBe(1);
  });
});
