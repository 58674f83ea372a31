/**
 * The dashboard script's lists: one per protocol and kind, with search, status filter, sort and
 * paging through the API's own list parameters (`search`, `status`, `sortBy`, `direction`,
 * `page`, `per_page`), and the namespace and entry point filters through Portico's
 * `api/portico/records` (Traefik's lists have no such parameters). Part of script.ts.
 */
export const SCRIPT_LISTS = String.raw`
  /** A service's health from its servers: a DOWN server makes it "degraded", all DOWN "down". */
  function serviceHealth(rec) {
    var states = rec.serverStatus ? Object.keys(rec.serverStatus).map(function (k) { return rec.serverStatus[k]; }) : [];
    var down = states.filter(function (s) { return s === 'DOWN'; }).length;
    if (rec.status !== 'enabled' || down === 0) return { status: rec.status, label: rec.status, down: down, total: states.length };
    if (down === states.length) return { status: 'disabled', label: 'down', down: down, total: states.length, note: 'all ' + plural(states.length, 'server') + ' DOWN' };
    return { status: 'warning', label: 'degraded', down: down, total: states.length, note: down + ' of ' + plural(states.length, 'server') + ' DOWN' };
  }
  function statusCell(kind, rec) {
    if (kind !== 'services') return badge(rec.status);
    var h = serviceHealth(rec);
    return el('span', { title: h.note || rec.status }, [badge(h.status, h.label), h.note ? visuallyHidden(', ' + h.note) : null]);
  }
  function whyCell(rec) {
    if (!rec.error || rec.error.length === 0) return '';
    return el('span', { className: 'why ' + rec.status, text: rec.error.join('; ') });
  }
  function sourceText(src) { return src ? (src.namespace ? src.namespace + '/' : '') + src.name : ''; }

  function columns(s, all) {
    var status = ['Status', function (r) { return statusCell(s.kind, r); }];
    var name = ['Name', function (r) { return recordLink(s.protocol, s.kind, r.name, r.status); }];
    var source = ['Source', function (r) { var src = sourceOf(all, s.protocol, s.kind, r.name); return src ? el('span', { title: src.kind, text: sourceText(src) }) : ''; }];
    var provider = ['Provider', 'provider'];
    if (s.kind === 'routers') {
      var cols = [status, name];
      if (s.protocol !== 'udp') cols.push(['Rule', 'rule']);
      cols.push(['Entry points', function (r) { return (r.entryPoints || []).join(', '); }], ['Service', 'service']);
      if (s.protocol !== 'udp') cols.push(['Priority', 'priorityStr']);
      cols.push(provider, source, ['Why', whyCell]);
      return cols;
    }
    if (s.kind === 'services') {
      return [status, name, ['Type', 'type'], ['Servers', function (r) {
        var h = serviceHealth(r);
        if (h.total === 0) return '';
        return el('span', { className: h.down ? 'down-count' : '', text: (h.total - h.down) + ' of ' + h.total + ' up' });
      }], provider, source, ['Why', whyCell]];
    }
    return [status, name, ['Type', 'type'], provider, source, ['Why', whyCell]];
  }

  function select(id, label, values, current, onChange) {
    var s = el('select', { id: id, 'aria-label': label }, values.map(function (v) { return el('option', { value: v[0], text: v[1] }); }));
    s.value = current;
    s.addEventListener('change', function () { onChange(s.value); });
    return s;
  }

  function namespacesOf(all, s) {
    var seen = {};
    KINDS[s.protocol].forEach(function (k) {
      var m = (all[s.protocol] || {})[k] || {};
      Object.keys(m).forEach(function (n) { if (m[n].namespace) seen[m[n].namespace] = true; });
    });
    return Object.keys(seen).sort();
  }

  function toolbar(s, all, eps) {
    var search = el('input', { id: 'search', type: 'search', placeholder: 'Search by name' + (s.kind === 'routers' && s.protocol !== 'udp' ? ' or rule' : '') + ' (press /)', 'aria-label': 'Search ' + LABELS[s.kind].toLowerCase() });
    search.value = s.search;
    search.addEventListener('input', function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(function () { location.hash = withChanges(s, { search: search.value, page: 1 }); }, 250);
    });
    var items = [search,
      select('status', 'Status', [['', 'All statuses'], ['enabled', 'Enabled'], ['warning', 'Warning'], ['disabled', 'Disabled']], s.status,
        function (v) { location.hash = withChanges(s, { status: v, page: 1 }); }),
      select('sort', 'Sort by', SORTS[s.kind].map(function (v) { return [v, 'Sort by ' + v]; }), s.sortBy || 'name',
        function (v) { location.hash = withChanges(s, { sortBy: v === 'name' ? '' : v, page: 1 }); })];
    var dir = el('button', { id: 'direction', type: 'button', text: s.direction === 'desc' ? 'Descending' : 'Ascending', 'aria-label': 'Sort direction: ' + (s.direction === 'desc' ? 'descending' : 'ascending') });
    dir.addEventListener('click', function () { location.hash = withChanges(s, { direction: s.direction === 'desc' ? '' : 'desc', page: 1 }); });
    items.push(dir);
    var namespaces = namespacesOf(all, s);
    if (namespaces.length || s.namespace) {
      items.push(select('namespace', 'Namespace', [['', 'All namespaces']].concat(namespaces.map(function (n) { return [n, 'Namespace ' + n]; })), s.namespace,
        function (v) { location.hash = withChanges(s, { namespace: v, page: 1 }); }));
    }
    if (s.kind === 'routers') {
      items.push(select('entrypoint', 'Entry point', [['', 'All entry points']].concat(eps.map(function (e) { return [e.name, 'Entry point ' + e.name]; })), s.entryPoint,
        function (v) { location.hash = withChanges(s, { entryPoint: v, page: 1 }); }));
    }
    return el('div', { className: 'toolbar', role: 'search' }, items);
  }

  function listQuery(s) {
    var q = new URLSearchParams({ per_page: String(PER_PAGE), page: String(s.page) });
    ['search', 'status', 'sortBy', 'direction'].forEach(function (k) { if (s[k]) q.set(k, s[k]); });
    if (s.namespace) q.set('namespace', s.namespace);
    if (s.entryPoint && s.kind === 'routers') q.set('entryPoint', s.entryPoint);
    // Traefik's own list answers unless a Portico-only filter is set.
    var portico = q.has('namespace') || q.has('entryPoint');
    return (portico ? 'portico/records/' : '') + s.protocol + '/' + s.kind + '?' + q.toString();
  }

  /** A live refresh replaces the rows only, so the toolbar (and a search being typed) stays. */
  function renderList(view, s, live) {
    var seq = state.renderSeq;
    var holder = live ? document.getElementById('list') : null;
    if (!holder || !view.querySelector('.toolbar')) {
      live = false;
      view.textContent = '';
      view.appendChild(el('h1', { className: 'page-title', text: s.protocol.toUpperCase() + ' ' + LABELS[s.kind] }));
      holder = el('div', { id: 'list' });
      view.appendChild(holder);
    }
    Promise.all([sources(), s.kind === 'routers' ? entryPoints() : Promise.resolve([]), api(listQuery(s))]).then(function (results) {
      if (seq !== state.renderSeq) return;
      var all = results[0];
      var r = results[2];
      if (!live) view.insertBefore(toolbar(s, all, results[1]), holder);
      holder.textContent = '';
      if (!r.body || r.body.length === 0) {
        holder.appendChild(el('div', { className: 'empty', id: 'empty', text: 'No ' + s.kind + ' match.' }));
        return;
      }
      var cols = columns(s, all);
      var tbody = el('tbody');
      r.body.forEach(function (rec) {
        var tr = el('tr', { 'data-name': rec.name, className: 'row-' + rec.status }, cols.map(function (c) {
          var v = typeof c[1] === 'function' ? c[1](rec) : (rec[c[1]] == null ? '' : String(rec[c[1]]));
          return el('td', { className: c[0] === 'Rule' ? 'mono' : '' }, [v]);
        }));
        tr.addEventListener('click', function (e) { if (e.target.tagName !== 'A') location.hash = recordHash(s.protocol, s.kind, rec.name); });
        tbody.appendChild(tr);
      });
      holder.appendChild(el('table', { id: 'records' }, [
        el('caption', { className: 'sr-only', text: s.protocol.toUpperCase() + ' ' + LABELS[s.kind] + ', page ' + s.page }),
        el('thead', null, [el('tr', null, cols.map(function (c) { return el('th', { scope: 'col', text: c[0] }); }))]),
        tbody,
      ]));
      var prev = el('button', { id: 'prev', type: 'button', text: 'Previous', 'aria-label': 'Previous page' });
      var next = el('button', { id: 'next', type: 'button', text: 'Next', 'aria-label': 'Next page' });
      prev.disabled = s.page <= 1;
      next.disabled = !r.nextPage || r.nextPage === '1';
      prev.addEventListener('click', function () { location.hash = withChanges(s, { page: s.page - 1 }); });
      next.addEventListener('click', function () { location.hash = withChanges(s, { page: s.page + 1 }); });
      holder.appendChild(el('nav', { className: 'pager', 'aria-label': 'Pages' }, [prev,
        el('span', { id: 'page', text: 'Page ' + s.page + (r.total ? ' of ' + Math.max(1, Math.ceil(Number(r.total) / PER_PAGE)) + ' (' + plural(Number(r.total), SINGULAR[s.kind]) + ')' : '') }), next]));
    }).catch(function (err) {
      if (seq !== state.renderSeq) return;
      holder.textContent = '';
      holder.appendChild(el('div', { className: 'error-box', role: 'alert', text: err.message }));
    });
  }
`;
