import { describe, expect, it } from 'vitest';
import { DASHBOARD_CSS, dashboardHtml } from '../../../src/management/dashboard/page.js';
import { DASHBOARD_SCRIPT } from '../../../src/management/dashboard/script.js';

describe('dashboard assets', () => {
  it('the script parses as plain browser JavaScript', () => {
    expect(() => new Function(DASHBOARD_SCRIPT)).not.toThrow();
  });

  it('the page references only its own relative assets', () => {
    const html = dashboardHtml();
    expect(html).toContain('<script src="app.js" defer></script>');
    expect(html).toContain('<link rel="stylesheet" href="app.css">');
    expect(html).not.toMatch(/https?:\/\//);
    expect(DASHBOARD_CSS).not.toMatch(/url\(/);
  });

  it('never inserts record text as HTML', () => {
    expect(DASHBOARD_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });
});
