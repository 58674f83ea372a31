/**
 * The dashboard's browser script (plain ES2020, no dependencies), served as `app.js`: the parts
 * (script-*.ts) concatenated inside one function scope, with the router that picks a view from
 * the URL hash (`#/`, `#/problems`, `#/http/routers?search=x&status=warning&page=2`,
 * `#/http/routers/<encoded name>`). It reads the same API as any client (`../api/...`, relative so
 * a prefix works) plus Portico's `../api/portico/...` endpoints (portico-api.ts).
 */
import { SCRIPT_CORE } from './script-core.js';
import { SCRIPT_DETAIL } from './script-detail.js';
import { SCRIPT_FLOW } from './script-flow.js';
import { SCRIPT_LISTS } from './script-lists.js';
import { SCRIPT_OVERVIEW } from './script-overview.js';

const SCRIPT_MAIN = String.raw`
  function renderNav(s) {
    var current = s.view === 'overview' ? 'overview' : s.view === 'problems' ? 'problems' : s.protocol;
    document.querySelectorAll('nav.main a').forEach(function (a) {
      var on = a.getAttribute('data-nav') === current;
      a.classList.toggle('active', on);
      if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    var kinds = document.getElementById('kinds');
    kinds.textContent = '';
    kinds.hidden = s.view !== 'list' && s.view !== 'detail';
    if (kinds.hidden) return;
    KINDS[s.protocol].forEach(function (k) {
      var a = el('a', { href: '#/' + s.protocol + '/' + k, className: k === s.kind ? 'active' : '', text: LABELS[k] });
      if (k === s.kind) a.setAttribute('aria-current', 'page');
      kinds.appendChild(a);
    });
  }

  function render(live) {
    var s = parseHash();
    state.renderSeq += 1;
    renderNav(s);
    var view = document.getElementById('view');
    keepFocus(function () {
      if (s.view === 'list') { renderList(view, s, live === true); return; }
      view.textContent = '';
      if (s.view === 'overview') renderOverview(view);
      else if (s.view === 'problems') renderProblems(view);
      else renderDetail(view, s);
    });
    if (live !== true) document.title = (s.view === 'detail' ? s.name : s.view === 'list' ? s.protocol.toUpperCase() + ' ' + LABELS[s.kind] : s.view === 'problems' ? 'Problems' : 'Overview') + ' \u2013 Portico';
  }

  window.addEventListener('hashchange', function () { render(false); });
  document.addEventListener('keydown', function (e) {
    var t = e.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
    if (e.key === '/' && !typing) {
      var search = document.getElementById('search');
      if (search) { e.preventDefault(); search.focus(); }
    }
    if (e.key === 'Enter' && t && t.tagName === 'TR' && t.getAttribute('data-name')) t.click();
  });
  document.addEventListener('DOMContentLoaded', function () {
    initTheme();
    api('version').then(function (r) { document.getElementById('version').textContent = 'Traefik API ' + r.body.Version; }).catch(function () {});
    render(false);
    poll();
  });
`;

export const DASHBOARD_SCRIPT = `'use strict';
(function () {
${SCRIPT_CORE}
${SCRIPT_OVERVIEW}
${SCRIPT_LISTS}
${SCRIPT_DETAIL}
${SCRIPT_FLOW}
${SCRIPT_MAIN}
})();
`;
