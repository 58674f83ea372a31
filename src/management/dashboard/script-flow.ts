/**
 * The dashboard script's flow of a router: entry points → router → middlewares → service →
 * servers, each step a link to its record with its status, each server with its state (DOWN
 * highlighted). A weighted, mirroring or failover service shows its children and their servers.
 * Part of script.ts.
 */
export const SCRIPT_FLOW = String.raw`
  function fetchRecord(protocol, kind, name) {
    return api(protocol + '/' + kind + '/' + encodeURIComponent(name)).then(function (r) { return r.body; }).catch(function (err) {
      return { name: name, missing: true, status: 'disabled', error: [err.message] };
    });
  }
  function stage(title, id, children) {
    return el('li', { className: 'stage', id: id }, [el('h3', { text: title })].concat(children));
  }
  function serverItems(rec) {
    var lb = rec.loadBalancer;
    if (!lb) return [];
    var status = rec.serverStatus || {};
    return (lb.servers || []).map(function (srv) {
      var key = srv.url || srv.address || '';
      var st = status[key] || 'UP';
      return el('li', { className: 'server' + (st === 'DOWN' ? ' down' : ''), 'data-server': key }, [el('span', { className: 'mono', text: key }), ' ', stateBadge(st)]);
    });
  }
  function recordItem(protocol, kind, rec) {
    if (rec.missing) return el('li', { className: 'missing' }, [el('span', { className: 'mono', text: rec.name }), ' ', badge('disabled', 'missing')]);
    var st = kind === 'services' ? serviceHealth(rec) : { status: rec.status, label: rec.status };
    return el('li', null, [recordLink(protocol, kind, rec.name), rec.type ? el('span', { className: 'muted', text: ' ' + rec.type + ' ' }) : ' ', badge(st.status, st.label)]);
  }

  /** Whether the router's errors already say a record is missing (then it is not asked for). */
  function knownMissing(rec, name) {
    return (rec.error || []).some(function (e) { return e.indexOf('"' + name + '" does not exist') !== -1; });
  }
  function fetchUnlessMissing(rec, protocol, kind, name) {
    if (knownMissing(rec, name)) return Promise.resolve({ name: name, missing: true, status: 'disabled' });
    return fetchRecord(protocol, kind, name);
  }

  function renderFlow(rec, s, eps, seq) {
    var p = rec.provider;
    var mws = s.protocol === 'udp' ? [] : (rec.middlewares || []).map(function (m) { return qualified(m, p); });
    var serviceName = rec.service ? qualified(rec.service, p) : null;
    Promise.all([
      Promise.all(mws.map(function (m) { return fetchUnlessMissing(rec, s.protocol, 'middlewares', m); })),
      serviceName ? fetchUnlessMissing(rec, s.protocol, 'services', serviceName) : Promise.resolve(null),
    ]).then(function (results) {
      var service = results[1];
      var children = service && !service.missing ? serviceChildren(service) : [];
      return Promise.all(children.map(function (c) { return fetchRecord(s.protocol, 'services', c); })).then(function (kids) {
        return { middlewares: results[0], service: service, children: kids };
      });
    }).then(function (f) {
      if (seq !== state.renderSeq) return;
      var using = rec.using || [];
      var epItems = (rec.entryPoints || []).map(function (name) {
        var ep = eps.filter(function (e) { return e.name === name; })[0];
        var known = using.indexOf(name) !== -1;
        return el('li', { className: known ? '' : 'missing', 'data-entrypoint': name }, [el('span', { className: 'mono', text: name }),
          el('span', { className: 'muted', text: ep ? ' ' + ep.address : '' }), known ? null : badge('warning', 'does not exist')]);
      });
      var serverList = [];
      if (f.service && f.service.loadBalancer) serverList = serverItems(f.service);
      f.children.forEach(function (child) {
        var li = recordItem(s.protocol, 'services', child);
        li.setAttribute('class', (li.getAttribute('class') || '') + ' child');
        li.appendChild(el('ul', { className: 'servers' }, serverItems(child)));
        serverList.push(li);
      });
      var ol = el('ol', { className: 'flow', 'aria-label': 'How a request flows through ' + rec.name }, [
        stage('Entry points', 'flow-entrypoints', [el('ul', null, epItems)]),
        stage('Router', 'flow-router', [el('ul', null, [el('li', null, [el('span', { className: 'mono', text: rec.name }), ' ', badge(rec.status)])]),
          rec.rule ? el('code', { className: 'mono rule', text: rec.rule }) : null]),
        stage('Middlewares', 'flow-middlewares', [f.middlewares.length ? el('ol', null, f.middlewares.map(function (m) { return recordItem(s.protocol, 'middlewares', m); }))
          : el('p', { className: 'muted', text: 'none' })]),
        stage('Service', 'flow-service', [f.service ? el('ul', null, [recordItem(s.protocol, 'services', f.service)]) : el('p', { className: 'muted', text: 'none' })]),
        stage('Servers', 'flow-servers', [serverList.length ? el('ul', null, serverList) : el('p', { className: 'muted', text: 'none' })]),
      ]);
      var holder = document.getElementById('flow');
      if (!holder) return;
      holder.textContent = '';
      holder.appendChild(el('h2', { id: 'flow-title', text: 'Flow' }));
      holder.appendChild(ol);
    });
  }
`;
