import { describe, expect, it } from 'vitest';
import { trailingSlashRedirect } from '../../../src/pushgateway/http/trailing-slash.js';

// Answers observed on Pushgateway 1.11.1; pushgateway-side-by-side.test.ts compares them live.
describe('trailingSlashRedirect', () => {
  it('sends a push to /metrics/job/ to /metrics/job with 307 and no body', () => {
    for (const method of ['PUT', 'POST', 'DELETE']) {
      expect(trailingSlashRedirect(method, '/metrics/job/', '')).toEqual({ status: 307, location: '/metrics/job', body: undefined });
    }
    expect(trailingSlashRedirect('PUT', '/pg/metrics/job/?x=1', '/pg')).toEqual({ status: 307, location: '/pg/metrics/job?x=1', body: undefined });
  });

  it('sends GET of a served page with a trailing slash to the page, query kept, with the HTML link', () => {
    expect(trailingSlashRedirect('GET', '/metrics/?a=b&c="', '')).toEqual({
      status: 301,
      location: '/metrics?a=b&c="',
      body: '<a href="/metrics?a=b&amp;c=&#34;">Moved Permanently</a>.\n\n',
    });
    expect(trailingSlashRedirect('GET', '/-/ready/', '')?.location).toBe('/-/ready');
  });

  it('leaves everything else a 404', () => {
    for (const [method, url] of [
      ['GET', '/metrics/job/'],
      ['HEAD', '/metrics/'],
      ['PUT', '/metrics/'],
      ['PUT', '/metrics/job'],
      ['PUT', '/metrics/job@base64/'],
      ['GET', '/api/v1/metrics/'],
      ['PUT', '/metrics/job/'.replace('job', 'jobs')],
    ] as const) {
      expect(trailingSlashRedirect(method, url, '')).toBeUndefined();
    }
  });
});
