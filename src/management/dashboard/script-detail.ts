/**
 * The dashboard script's record pages: routers, services and middlewares of every kind rendered
 * as readable fields (options as labelled values, children and chains as links, TLS as its own
 * section, servers with their health), the flow entry points → router → middlewares → service →
 * servers, and the record's source. Part of script.ts.
 */
export const SCRIPT_DETAIL = String.raw`
  var META = ['name', 'provider', 'status', 'error', 'usedBy', 'using', 'type', 'serverStatus'];

  function humanize(key) {
    var words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  /** Any option value as readable markup: scalars as text, lists as items, objects as labelled fields. */
  function valueNode(v, key) {
    if (v === null || v === undefined) return el('span', { className: 'muted', text: 'not set' });
    if (typeof v === 'boolean') return el('span', { text: v ? 'yes' : 'no' });
    if (typeof v !== 'object') return el('span', { className: typeof v === 'string' && /^[a-z]+:\/\/|[\/.:]/.test(v) ? 'mono' : '', text: String(v) });
    if (Array.isArray(v)) {
      if (v.length === 0) return el('span', { className: 'muted', text: 'none' });
      return el('ul', { className: 'values' }, v.map(function (item) { return el('li', null, [valueNode(item, key)]); }));
    }
    return fields(v);
  }
  function fields(obj, skip) {
    var dl = el('dl', { className: 'fields' });
    Object.keys(obj).forEach(function (k) {
      if (skip && skip.indexOf(k) !== -1) return;
      dl.appendChild(el('dt', { text: /[^A-Za-z0-9]/.test(k) ? k : humanize(k) }));
      dl.appendChild(el('dd', null, [valueNode(obj[k], k)]));
    });
    return dl;
  }
  function panel(title, id, children) {
    return el('section', { className: 'panel', id: id, 'aria-labelledby': id + '-title' }, [el('h2', { id: id + '-title', text: title })].concat(children));
  }
  function links(protocol, kind, names) {
    if (!names || names.length === 0) return el('span', { className: 'muted', text: 'none' });
    return el('ul', { className: 'links' }, names.map(function (n) { return el('li', null, [recordLink(protocol, kind, n)]); }));
  }
  function table(id, caption, heads, rows) {
    return el('table', { id: id, className: 'compact' }, [
      el('caption', { className: 'sr-only', text: caption }),
      el('thead', null, [el('tr', null, heads.map(function (h) { return el('th', { scope: 'col', text: h }); }))]),
      el('tbody', null, rows),
    ]);
  }
  function stateBadge(state) { return badge(state === 'DOWN' ? 'disabled' : 'enabled', state || 'UP'); }

  /** The servers of a load balancer with each one's state; DOWN rows are marked. */
  function serversTable(rec, lb) {
    var status = rec.serverStatus || {};
    return table('servers', 'Servers of ' + rec.name, ['Server', 'Weight', 'State'], (lb.servers || []).map(function (srv) {
      var key = srv.url || srv.address || '';
      var st = status[key] || 'UP';
      return el('tr', { className: st === 'DOWN' ? 'down' : '', 'data-server': key }, [
        el('td', { className: 'mono', text: key }), el('td', { text: srv.weight == null ? '' : String(srv.weight) }), el('td', null, [stateBadge(st)]),
      ]);
    }));
  }
  function weightsTable(id, caption, protocol, provider, list, weightKey) {
    return table(id, caption, ['Service', weightKey === 'percent' ? 'Percent' : 'Weight'], (list || []).map(function (c) {
      return el('tr', { 'data-child': qualified(c.name, provider) }, [el('td', null, [recordLink(protocol, 'services', qualified(c.name, provider))]),
        el('td', { text: c[weightKey] == null ? '' : String(c[weightKey]) })]);
    }));
  }

  /** The children a service sends to (weighted, mirroring, failover, highest random weight). */
  function serviceChildren(rec) {
    var p = rec.provider;
    if (rec.weighted) return (rec.weighted.services || []).map(function (c) { return qualified(c.name, p); });
    if (rec.highestRandomWeight) return (rec.highestRandomWeight.services || []).map(function (c) { return qualified(c.name, p); });
    if (rec.mirroring) return [rec.mirroring.service].concat((rec.mirroring.mirrors || []).map(function (m) { return m.name; })).filter(Boolean).map(function (n) { return qualified(n, p); });
    if (rec.failover) return [rec.failover.service, rec.failover.fallback].filter(Boolean).map(function (n) { return qualified(n, p); });
    return [];
  }

  function serviceSections(rec, s) {
    var out = [];
    var p = rec.provider;
    var h = serviceHealth(rec);
    if (h.note) out.push(el('p', { className: 'health-note ' + h.status, id: 'health-note', role: 'status', text: 'Health: ' + h.label + ' \u2014 ' + h.note }));
    if (rec.loadBalancer) {
      out.push(panel('Servers', 'lb-servers', [serversTable(rec, rec.loadBalancer)]));
      out.push(panel('Load balancer', 'lb-options', [fields(rec.loadBalancer, ['servers'])]));
    }
    if (rec.weighted) {
      out.push(panel('Weighted services', 'weighted', [weightsTable('children', 'Weighted children', s.protocol, p, rec.weighted.services, 'weight'), fields(rec.weighted, ['services'])]));
    }
    if (rec.highestRandomWeight) {
      out.push(panel('Highest random weight', 'hrw', [weightsTable('children', 'Children', s.protocol, p, rec.highestRandomWeight.services, 'weight'), fields(rec.highestRandomWeight, ['services'])]));
    }
    if (rec.mirroring) {
      out.push(panel('Mirroring', 'mirroring', [
        el('dl', { className: 'fields' }, [el('dt', { text: 'Main service' }), el('dd', null, [recordLink(s.protocol, 'services', qualified(rec.mirroring.service, p))])]),
        weightsTable('children', 'Mirrors', s.protocol, p, rec.mirroring.mirrors, 'percent'),
        fields(rec.mirroring, ['service', 'mirrors']),
      ]));
    }
    if (rec.failover) {
      out.push(panel('Failover', 'failover', [el('dl', { className: 'fields', id: 'children' }, [
        el('dt', { text: 'Service' }), el('dd', null, [recordLink(s.protocol, 'services', qualified(rec.failover.service, p))]),
        el('dt', { text: 'Fallback' }), el('dd', null, [recordLink(s.protocol, 'services', qualified(rec.failover.fallback, p))]),
      ]), fields(rec.failover, ['service', 'fallback'])]));
    }
    out.push(panel('Used by', 'used-by', [links(s.protocol, 'routers', rec.usedBy)]));
    return out;
  }

  function middlewareOptionsKey(rec) {
    return Object.keys(rec).filter(function (k) { return META.indexOf(k) === -1; })[0];
  }
  function middlewareSections(rec, s) {
    var key = middlewareOptionsKey(rec);
    var opts = key ? rec[key] : {};
    var out = [];
    var body;
    if (key === 'chain') {
      body = [el('p', { text: 'Runs these middlewares in order:' }), links(s.protocol, 'middlewares', (opts.middlewares || []).map(function (m) { return qualified(m, rec.provider); }))];
    } else if ((key === 'basicAuth' || key === 'digestAuth') && Array.isArray(opts.users)) {
      var masked = {};
      Object.keys(opts).forEach(function (k) { masked[k] = opts[k]; });
      masked.users = opts.users.map(function (u) { return String(u).split(':')[0] + ' (password hash hidden)'; });
      body = [fields(masked)];
    } else {
      body = [fields(opts || {})];
    }
    out.push(panel(key ? humanize(key) + ' options' : 'Options', 'options', body));
    out.push(panel('Used by', 'used-by', [links(s.protocol, 'routers', rec.usedBy)]));
    return out;
  }

  function routerSections(rec, s) {
    var p = rec.provider;
    var rows = [];
    if (rec.rule) rows.push(['Rule', el('code', { className: 'mono', text: rec.rule })]);
    if (rec.ruleSyntax) rows.push(['Rule syntax', rec.ruleSyntax]);
    if (rec.priorityStr) rows.push(['Priority', rec.priorityStr]);
    rows.push(['Entry points', (rec.entryPoints || []).join(', ') || 'none']);
    if (rec.using) rows.push(['Using', rec.using.join(', ')]);
    if (rec.service) rows.push(['Service', recordLink(s.protocol, 'services', qualified(rec.service, p))]);
    if (s.protocol !== 'udp') rows.push(['Middlewares', links(s.protocol, 'middlewares', (rec.middlewares || []).map(function (m) { return qualified(m, p); }))]);
    var dl = el('dl', { className: 'fields' });
    rows.forEach(function (r) { dl.appendChild(el('dt', { text: r[0] })); dl.appendChild(el('dd', null, [typeof r[1] === 'string' ? el('span', { text: r[1] }) : r[1]])); });
    var out = [panel('Router', 'router-fields', [dl])];
    if (rec.tls) {
      var tls = {};
      Object.keys(rec.tls).forEach(function (k) { tls[k] = rec.tls[k]; });
      if (tls.domains) tls.domains = tls.domains.map(function (d) { return (d.main || '') + (d.sans && d.sans.length ? ' (also ' + d.sans.join(', ') + ')' : ''); });
      out.push(panel('TLS', 'tls', Object.keys(tls).length ? [fields(tls)] : [el('p', { text: 'TLS on, with the default options.' })]));
    }
    if (rec.observability) out.push(panel('Observability', 'observability', [fields(rec.observability)]));
    out.push(panel('Flow', 'flow', [el('p', { className: 'muted', text: 'Loading\u2026' })]));
    return out;
  }

  function sourcePanel(src) {
    if (!src) return null;
    var rows = [['Kind', src.kind], ['Namespace', src.namespace || '(cluster-scoped)'], ['Name', src.name]];
    if (src.apiVersion) rows.push(['API version', src.apiVersion]);
    if (src.uid) rows.push(['UID', src.uid]);
    // The version the records were translated from; a later status write moves the object's own.
    if (src.resourceVersion) rows.push(['Resource version', src.resourceVersion + ' (as translated)']);
    var dl = el('dl', { className: 'fields' });
    rows.forEach(function (r) { dl.appendChild(el('dt', { text: r[0] })); dl.appendChild(el('dd', { text: r[1] })); });
    dl.appendChild(el('dt', { text: 'Show it' }));
    dl.appendChild(el('dd', null, [el('code', { className: 'kubectl', id: 'kubectl', text: src.kubectl })]));
    return panel('Source', 'source', [dl]);
  }

  function renderDetail(view, s) {
    var seq = state.renderSeq;
    view.appendChild(el('a', { className: 'back', href: '#/' + s.protocol + '/' + s.kind, text: '\u2190 All ' + s.protocol.toUpperCase() + ' ' + s.kind }));
    Promise.all([api(s.protocol + '/' + s.kind + '/' + encodeURIComponent(s.name)), sources(), entryPoints()]).then(function (results) {
      if (seq !== state.renderSeq) return;
      var rec = results[0].body;
      var status = s.kind === 'services' ? serviceHealth(rec) : { status: rec.status, label: rec.status };
      var box = el('article', { className: 'detail', id: 'detail', 'aria-labelledby': 'detail-title' }, [
        el('h1', { id: 'detail-title', className: 'page-title' }, [el('span', { className: 'kind', text: s.protocol.toUpperCase() + ' ' + SINGULAR[s.kind] + ' ' }), el('span', { className: 'mono name', text: rec.name }), ' ', badge(status.status, status.label)]),
        el('p', { className: 'muted', text: 'Provider ' + rec.provider + (rec.type ? ', type ' + rec.type : '') }),
      ]);
      if (rec.error && rec.error.length) {
        box.appendChild(panel(rec.status === 'disabled' ? 'Why it is disabled' : 'Warnings', 'errors-panel', [el('ul', { className: 'errors', id: 'errors' }, rec.error.map(function (e) { return el('li', { text: e }); }))]));
      }
      var src = sourcePanel(sourceOf(results[1], s.protocol, s.kind, rec.name));
      if (src) box.appendChild(src);
      var sections = s.kind === 'routers' ? routerSections(rec, s) : s.kind === 'services' ? serviceSections(rec, s) : middlewareSections(rec, s);
      sections.forEach(function (x) { box.appendChild(x); });
      var raw = el('details', { className: 'raw' }, [el('summary', { text: 'Record as the API returns it (JSON)' }), el('pre', { id: 'raw', text: JSON.stringify(rec, null, 2) })]);
      box.appendChild(raw);
      view.appendChild(box);
      if (s.kind === 'routers') renderFlow(rec, s, results[2], seq);
    }).catch(function (err) {
      if (seq !== state.renderSeq) return;
      view.appendChild(el('div', { className: 'error-box', id: 'detail-error', role: 'alert', text: err.message }));
    });
  }
`;
