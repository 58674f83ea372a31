/**
 * The dashboard's browser script (plain ES2020, no dependencies), served as `app.js`. It reads
 * the same API as any client (`../api/...`, relative so a prefix works), pages with `X-Next-Page`,
 * and keeps its state in the URL hash: `#/http/routers?search=x&status=warning&page=2` for a list,
 * `#/http/routers/<encoded name>` for a detail view. Record text is only ever set as textContent.
 */
export const DASHBOARD_SCRIPT = String.raw`
'use strict';
(function () {
  var PER_PAGE = 25;
  var KINDS = { http: ['routers', 'services', 'middlewares'], tcp: ['routers', 'services', 'middlewares'], udp: ['routers', 'services'] };
  var LABELS = { routers: 'Routers', services: 'Services', middlewares: 'Middlewares' };
  var SORTS = {
    routers: ['name', 'priority', 'status', 'rule', 'service', 'entryPoints', 'provider'],
    services: ['name', 'type', 'servers', 'status', 'provider'],
    middlewares: ['name', 'type', 'status', 'provider'],
  };
  var searchTimer = null;

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'className') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }

  function parseHash() {
    var h = location.hash.replace(/^#\/?/, '');
    var q = '';
    var qi = h.indexOf('?');
    if (qi !== -1) { q = h.slice(qi + 1); h = h.slice(0, qi); }
    var parts = h.split('/');
    var protocol = KINDS[parts[0]] ? parts[0] : 'http';
    var kind = KINDS[protocol].indexOf(parts[1]) !== -1 ? parts[1] : 'routers';
    var name = parts.length > 2 ? decodeURIComponent(parts.slice(2).join('/')) : null;
    var params = new URLSearchParams(q);
    return { protocol: protocol, kind: kind, name: name, search: params.get('search') || '', status: params.get('status') || '',
      sortBy: params.get('sortBy') || '', direction: params.get('direction') === 'desc' ? 'desc' : '',
      page: Math.max(1, parseInt(params.get('page') || '1', 10) || 1) };
  }

  function listHash(s) {
    var p = new URLSearchParams();
    if (s.search) p.set('search', s.search);
    if (s.status) p.set('status', s.status);
    if (s.sortBy) p.set('sortBy', s.sortBy);
    if (s.direction) p.set('direction', s.direction);
    if (s.page > 1) p.set('page', String(s.page));
    var q = p.toString();
    return '#/' + s.protocol + '/' + s.kind + (q ? '?' + q : '');
  }

  function withChanges(s, changes) {
    var next = { protocol: s.protocol, kind: s.kind, search: s.search, status: s.status, sortBy: s.sortBy, direction: s.direction, page: s.page };
    Object.keys(changes).forEach(function (k) { next[k] = changes[k]; });
    return listHash(next);
  }

  function api(path) {
    return fetch('../api/' + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }).then(function (res) {
      return res.text().then(function (text) {
        var body = null;
        try { body = JSON.parse(text); } catch (e) { body = null; }
        if (!res.ok) throw new Error((body && body.message) || text.trim() || ('HTTP ' + res.status));
        return { body: body, nextPage: res.headers.get('X-Next-Page') };
      });
    });
  }

  function badge(status) { return el('span', { className: 'badge ' + status, text: status }); }

  function renderOverview() {
    api('overview').then(function (r) {
      var box = document.getElementById('overview');
      box.textContent = '';
      ['http', 'tcp', 'udp'].forEach(function (p) {
        KINDS[p].forEach(function (k) {
          var c = (r.body[p] || {})[k] || { total: 0, warnings: 0, errors: 0 };
          var card = el('a', { className: 'card', href: '#/' + p + '/' + k, 'data-overview': p + '-' + k }, [
            el('h3', { text: p.toUpperCase() + ' ' + LABELS[k] }),
            el('div', { className: 'total', text: String(c.total) }),
            el('div', { className: 'sub', text: c.warnings + ' warnings, ' + c.errors + ' errors' }),
          ]);
          card.style.textDecoration = 'none';
          card.style.color = 'inherit';
          box.appendChild(card);
        });
      });
    }).catch(function () { /* the list view shows API errors */ });
  }

  function renderNav(s) {
    document.querySelectorAll('nav.protocols a').forEach(function (a) {
      a.classList.toggle('active', a.getAttribute('data-protocol') === s.protocol);
    });
    var kinds = document.getElementById('kinds');
    kinds.textContent = '';
    KINDS[s.protocol].forEach(function (k) {
      kinds.appendChild(el('a', { href: '#/' + s.protocol + '/' + k, className: k === s.kind ? 'active' : '', text: LABELS[k] }));
    });
  }

  function columns(s) {
    if (s.kind === 'routers') {
      var cols = [['Status', function (r) { return badge(r.status); }], ['Name', 'name']];
      if (s.protocol !== 'udp') cols.push(['Rule', 'rule']);
      cols.push(['Entry points', function (r) { return (r.entryPoints || []).join(', '); }], ['Service', 'service']);
      if (s.protocol !== 'udp') cols.push(['Priority', 'priorityStr']);
      cols.push(['Provider', 'provider']);
      return cols;
    }
    if (s.kind === 'services') {
      return [['Status', function (r) { return badge(r.status); }], ['Name', 'name'], ['Type', 'type'],
        ['Servers', function (r) { return String(r.loadBalancer && r.loadBalancer.servers ? r.loadBalancer.servers.length : 0); }], ['Provider', 'provider']];
    }
    return [['Status', function (r) { return badge(r.status); }], ['Name', 'name'], ['Type', 'type'], ['Provider', 'provider']];
  }

  function renderList(s) {
    var view = document.getElementById('view');
    view.textContent = '';
    var search = el('input', { id: 'search', type: 'search', placeholder: 'Search by name' + (s.kind === 'routers' && s.protocol !== 'udp' ? ' or rule' : ''), 'aria-label': 'Search' });
    search.value = s.search;
    search.addEventListener('input', function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(function () {
        location.hash = withChanges(s, { search: search.value, page: 1 });
      }, 250);
    });
    var status = el('select', { id: 'status', 'aria-label': 'Status' }, ['', 'enabled', 'warning', 'disabled'].map(function (v) {
      return el('option', { value: v, text: v === '' ? 'All statuses' : v });
    }));
    status.value = s.status;
    status.addEventListener('change', function () {
      location.hash = withChanges(s, { status: status.value, page: 1 });
    });
    var sort = el('select', { id: 'sort', 'aria-label': 'Sort by' }, SORTS[s.kind].map(function (v) {
      return el('option', { value: v, text: 'Sort by ' + v });
    }));
    sort.value = s.sortBy || 'name';
    sort.addEventListener('change', function () { location.hash = withChanges(s, { sortBy: sort.value === 'name' ? '' : sort.value, page: 1 }); });
    var dir = el('button', { id: 'direction', type: 'button', text: s.direction === 'desc' ? 'Descending' : 'Ascending' });
    dir.addEventListener('click', function () { location.hash = withChanges(s, { direction: s.direction === 'desc' ? '' : 'desc', page: 1 }); });
    view.appendChild(el('div', { className: 'toolbar' }, [search, status, sort, dir]));
    var holder = el('div', { id: 'list' });
    view.appendChild(holder);
    var q = new URLSearchParams({ per_page: String(PER_PAGE), page: String(s.page) });
    if (s.search) q.set('search', s.search);
    if (s.status) q.set('status', s.status);
    if (s.sortBy) q.set('sortBy', s.sortBy);
    if (s.direction) q.set('direction', s.direction);
    api(s.protocol + '/' + s.kind + '?' + q.toString()).then(function (r) {
      if (!r.body || r.body.length === 0) {
        holder.appendChild(el('div', { className: 'empty', id: 'empty', text: 'No ' + s.kind + ' match.' }));
        return;
      }
      var cols = columns(s);
      var thead = el('thead', null, [el('tr', null, cols.map(function (c) { return el('th', { text: c[0] }); }))]);
      var tbody = el('tbody');
      r.body.forEach(function (rec) {
        var tr = el('tr', { 'data-name': rec.name, tabindex: '0' }, cols.map(function (c) {
          var v = typeof c[1] === 'function' ? c[1](rec) : (rec[c[1]] == null ? '' : String(rec[c[1]]));
          return el('td', { className: c[0] === 'Rule' || c[0] === 'Name' ? 'mono' : '' }, [v]);
        }));
        var go = function () { location.hash = '#/' + s.protocol + '/' + s.kind + '/' + encodeURIComponent(rec.name); };
        tr.addEventListener('click', go);
        tr.addEventListener('keydown', function (e) { if (e.key === 'Enter') go(); });
        tbody.appendChild(tr);
      });
      holder.appendChild(el('table', { id: 'records' }, [thead, tbody]));
      var prev = el('button', { id: 'prev', type: 'button', text: 'Previous' });
      var next = el('button', { id: 'next', type: 'button', text: 'Next' });
      prev.disabled = s.page <= 1;
      next.disabled = !r.nextPage || r.nextPage === '1';
      prev.addEventListener('click', function () { location.hash = withChanges(s, { page: s.page - 1 }); });
      next.addEventListener('click', function () { location.hash = withChanges(s, { page: s.page + 1 }); });
      holder.appendChild(el('div', { className: 'pager' }, [prev, el('span', { id: 'page', text: 'Page ' + s.page }), next]));
    }).catch(function (err) {
      holder.appendChild(el('div', { className: 'error-box', text: err.message }));
    });
  }

  function linkList(protocol, kind, names) {
    var span = el('span');
    (names || []).forEach(function (n, i) {
      if (i > 0) span.appendChild(document.createTextNode(', '));
      span.appendChild(el('a', { href: '#/' + protocol + '/' + kind + '/' + encodeURIComponent(n), className: 'mono', text: n }));
    });
    return span;
  }

  function qualified(name, provider) { return name.indexOf('@') === -1 ? name + '@' + provider : name; }

  function renderDetail(s) {
    var view = document.getElementById('view');
    view.textContent = '';
    view.appendChild(el('a', { className: 'back', href: '#/' + s.protocol + '/' + s.kind, text: '\u2190 All ' + s.protocol.toUpperCase() + ' ' + s.kind }));
    api(s.protocol + '/' + s.kind + '/' + encodeURIComponent(s.name)).then(function (r) {
      var rec = r.body;
      var rows = [['Status', badge(rec.status)], ['Provider', rec.provider]];
      if (rec.type) rows.push(['Type', rec.type]);
      if (rec.rule) rows.push(['Rule', el('span', { className: 'mono', text: rec.rule })]);
      if (rec.priorityStr) rows.push(['Priority', rec.priorityStr]);
      if (rec.entryPoints) rows.push(['Entry points', rec.entryPoints.join(', ')]);
      if (rec.using) rows.push(['Using', rec.using.join(', ')]);
      if (rec.service) rows.push(['Service', linkList(s.protocol, 'services', [qualified(rec.service, rec.provider)])]);
      if (rec.middlewares && s.kind === 'routers') rows.push(['Middlewares', linkList(s.protocol, 'middlewares', rec.middlewares.map(function (m) { return qualified(m, rec.provider); }))]);
      if (rec.usedBy) rows.push(['Used by', linkList(s.protocol, 'routers', rec.usedBy)]);
      if (rec.serverStatus) rows.push(['Servers', Object.keys(rec.serverStatus).map(function (k) { return k + ' ' + rec.serverStatus[k]; }).join(', ')]);
      var dl = el('dl');
      rows.forEach(function (row) { dl.appendChild(el('dt', { text: row[0] })); dl.appendChild(el('dd', null, [row[1]])); });
      var box = el('div', { className: 'detail', id: 'detail' }, [el('h2', { text: rec.name }), dl]);
      if (rec.error && rec.error.length) {
        box.appendChild(el('h3', { text: 'Errors' }));
        box.appendChild(el('ul', { className: 'errors', id: 'errors' }, rec.error.map(function (e) { return el('li', { text: e }); })));
      }
      box.appendChild(el('h3', { text: 'Record' }));
      box.appendChild(el('pre', { id: 'raw', text: JSON.stringify(rec, null, 2) }));
      view.appendChild(box);
    }).catch(function (err) {
      view.appendChild(el('div', { className: 'error-box', id: 'detail-error', text: err.message }));
    });
  }

  function render() {
    var s = parseHash();
    renderNav(s);
    if (s.name !== null) renderDetail(s); else renderList(s);
  }

  window.addEventListener('hashchange', render);
  document.addEventListener('DOMContentLoaded', function () {
    api('version').then(function (r) { document.getElementById('version').textContent = 'Traefik API ' + r.body.Version; }).catch(function () {});
    renderOverview();
    render();
  });
})();
`;
