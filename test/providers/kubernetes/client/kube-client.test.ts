import { describe, expect, it } from 'vitest';
import { listMetaFromHead } from '../../../../src/providers/kubernetes/client/kube-client.js';

describe('listMetaFromHead', () => {
  it('reads a list\'s metadata from the text before its items', () => {
    const body = { kind: 'IngressList', apiVersion: 'networking.k8s.io/v1', metadata: { resourceVersion: '42', continue: 'eyJ0b2tlbiI6MX0=' }, items: [{ metadata: { name: 'a' } }] };
    expect(listMetaFromHead(Buffer.from(JSON.stringify(body)))).toEqual({ resourceVersion: '42', continue: 'eyJ0b2tlbiI6MX0=' });
    expect(listMetaFromHead(Buffer.from(JSON.stringify({ ...body, metadata: { resourceVersion: '7' } })))).toEqual({ resourceVersion: '7' });
  });

  it('gives nothing when the head does not show the metadata before the items', () => {
    expect(listMetaFromHead(Buffer.from(JSON.stringify({ items: [], metadata: { continue: 'x' } })))).toBeUndefined();
    expect(listMetaFromHead(Buffer.from('{"kind":"Status","code":500}'))).toBeUndefined();
    expect(listMetaFromHead(Buffer.from('<html>,"items":</html>'))).toBeUndefined();
    expect(listMetaFromHead(Buffer.from(`{"metadata":{"continue":"${'x'.repeat(5000)}"},"items":[]}`))).toBeUndefined();
  });
});

/** A paged list of `count` Ingresses, `size` per page; `log` records requests and decodes in order. */
