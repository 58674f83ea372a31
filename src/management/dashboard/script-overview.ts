/**
 * The dashboard script's overview (entry points, features, providers, a health chart per kind
 * drawn as inline SVG) and problems page (every disabled or warning record with its errors and
 * source). Part of the script script.ts assembles.
 */
export const SCRIPT_OVERVIEW = String.raw`
  /** A ring chart of success / warning / error shares; the text beside it says the same. */
  function healthChart(ok, warnings, errors, label) {
    var total = ok + warnings + errors;
    var chart = svg('svg', { viewBox: '0 0 42 42', width: '64', height: '64', role: 'img', 'aria-label': label, className: 'chart' });
    chart.appendChild(svg('circle', { cx: '21', cy: '21', r: '15.915', className: 'ring' }));
    var offset = 25;
    [[ok, 'ok'], [warnings, 'warn'], [errors, 'err']].forEach(function (part) {
      if (total === 0 || part[0] === 0) return;
      var share = part[0] * 100 / total;
      chart.appendChild(svg('circle', { cx: '21', cy: '21', r: '15.915', className: 'seg ' + part[1],
        'stroke-dasharray': share + ' ' + (100 - share), 'stroke-dashoffset': String(offset), 'data-share': part[1] }));
      offset = (offset - share + 100) % 100;
    });
    return chart;
  }

  function healthCard(protocol, kind, c) {
    var ok = c.total - c.warnings - c.errors;
    var text = plural(ok, 'success', 'successes') + ', ' + plural(c.warnings, 'warning') + ', ' + plural(c.errors, 'error');
    var title = protocol.toUpperCase() + ' ' + LABELS[kind];
    return el('a', { className: 'card health', href: '#/' + protocol + '/' + kind, 'data-overview': protocol + '-' + kind,
      'aria-label': title + ': ' + plural(c.total, SINGULAR[kind]) + ', ' + text }, [
      healthChart(ok, c.warnings, c.errors, title + ' health: ' + text),
      el('div', null, [
        el('h3', { text: title }),
        el('div', { className: 'total', text: String(c.total) }),
        el('ul', { className: 'legend' }, [
          el('li', { className: 'ok', text: plural(ok, 'success', 'successes') }),
          el('li', { className: 'warn', text: plural(c.warnings, 'warning') }),
          el('li', { className: 'err', text: plural(c.errors, 'error') }),
        ]),
      ]),
    ]);
  }

  function section(title, id, children) {
    return el('section', { className: 'panel', id: id, 'aria-labelledby': id + '-title' }, [el('h2', { id: id + '-title', text: title })].concat(children));
  }

  function renderOverview(view) {
    Promise.all([api('overview'), entryPoints()]).then(function (results) {
      var o = results[0].body;
      var eps = results[1];
      var cards = [];
      ['http', 'tcp', 'udp'].forEach(function (p) {
        KINDS[p].forEach(function (k) { cards.push(healthCard(p, k, (o[p] || {})[k] || { total: 0, warnings: 0, errors: 0 })); });
      });
      var problems = 0;
      ['http', 'tcp', 'udp'].forEach(function (p) { KINDS[p].forEach(function (k) { var c = (o[p] || {})[k]; if (c) problems += c.warnings + c.errors; }); });
      var epTable = el('table', { id: 'entrypoints' }, [
        el('caption', { className: 'sr-only', text: 'Entry points' }),
        el('thead', null, [el('tr', null, [el('th', { scope: 'col', text: 'Name' }), el('th', { scope: 'col', text: 'Address' })])]),
        el('tbody', null, eps.map(function (ep) { return el('tr', { 'data-name': ep.name }, [el('td', { className: 'mono', text: ep.name }), el('td', { className: 'mono', text: ep.address || '' })]); })),
      ]);
      var f = o.features || {};
      var features = el('dl', { id: 'features', className: 'fields' }, [
        el('dt', { text: 'Tracing' }), el('dd', { text: f.tracing || 'off' }),
        el('dt', { text: 'Metrics' }), el('dd', { text: f.metrics || 'off' }),
        el('dt', { text: 'Access log' }), el('dd', { text: f.accessLog ? 'on' : 'off' }),
      ]);
      var providers = el('ul', { id: 'providers', className: 'chips' }, (o.providers || []).map(function (p) { return el('li', { text: p }); }));
      view.appendChild(el('h1', { className: 'page-title', text: 'Overview' }));
      view.appendChild(el('p', { className: 'summary' }, [
        problems === 0 ? 'No problems.' : el('a', { href: '#/problems', id: 'problems-link', text: plural(problems, 'problem') + ': see what is wrong and why' }),
      ]));
      view.appendChild(el('div', { className: 'overview-grid' }, [
        section('Entry points', 'ov-entrypoints', [epTable]),
        section('Features', 'ov-features', [features]),
        section('Providers', 'ov-providers', [o.providers && o.providers.length ? providers : el('p', { className: 'muted', text: 'No provider has delivered records.' })]),
      ]));
      view.appendChild(section('Health', 'ov-health', [el('div', { className: 'cards', id: 'overview' }, cards)]));
    }).catch(function (err) { view.appendChild(el('div', { className: 'error-box', role: 'alert', text: err.message })); });
  }

  function sourceCell(src) {
    if (!src) return el('span', { className: 'muted', text: '\u2014' });
    return el('span', null, [
      el('span', { text: src.kind + ' ' + (src.namespace ? src.namespace + '/' : '') + src.name }),
      el('code', { className: 'kubectl', text: src.kubectl }),
    ]);
  }

  function renderProblems(view) {
    view.appendChild(el('h1', { className: 'page-title', text: 'Problems' }));
    var holder = el('div', { id: 'problems', 'aria-busy': 'true' });
    view.appendChild(holder);
    var jobs = [];
    ['http', 'tcp', 'udp'].forEach(function (p) {
      KINDS[p].forEach(function (k) {
        ['disabled', 'warning'].forEach(function (status) {
          jobs.push(apiAll(p + '/' + k + '?status=' + status).then(function (list) {
            return list.map(function (rec) { return { protocol: p, kind: k, rec: rec }; });
          }));
        });
      });
    });
    Promise.all([Promise.all(jobs), sources()]).then(function (results) {
      var rows = [].concat.apply([], results[0]);
      var all = results[1];
      holder.removeAttribute('aria-busy');
      var errors = rows.filter(function (r) { return r.rec.status === 'disabled'; }).length;
      holder.appendChild(el('p', { className: 'summary', id: 'problems-summary',
        text: rows.length === 0 ? 'No problems: every record is enabled.' : plural(rows.length, 'problem') + ': ' + plural(errors, 'error') + ', ' + plural(rows.length - errors, 'warning') + '.' }));
      if (rows.length === 0) return;
      var tbody = el('tbody');
      rows.forEach(function (r) {
        var src = sourceOf(all, r.protocol, r.kind, r.rec.name);
        tbody.appendChild(el('tr', { 'data-name': r.rec.name, 'data-kind': r.protocol + '-' + r.kind, className: 'row-' + r.rec.status }, [
          el('td', null, [badge(r.rec.status)]),
          el('td', { text: r.protocol.toUpperCase() + ' ' + SINGULAR[r.kind] }),
          el('td', null, [recordLink(r.protocol, r.kind, r.rec.name)]),
          el('td', null, [el('ul', { className: 'errors' }, (r.rec.error || []).map(function (e) { return el('li', { text: e }); }))]),
          el('td', { className: 'source' }, [sourceCell(src)]),
        ]));
      });
      holder.appendChild(el('table', { id: 'problem-table' }, [
        el('caption', { className: 'sr-only', text: 'Disabled and warning records' }),
        el('thead', null, [el('tr', null, ['Status', 'Kind', 'Name', 'Why', 'Source'].map(function (h) { return el('th', { scope: 'col', text: h }); }))]),
        tbody,
      ]));
    }).catch(function (err) { holder.appendChild(el('div', { className: 'error-box', role: 'alert', text: err.message })); });
  }
`;
