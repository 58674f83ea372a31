/**
 * The dashboard script's shared part (plain ES2020 text, concatenated by script.ts inside one
 * function scope): DOM helpers, API calls, the URL-hash state, the theme and live refresh. Record
 * text is only ever set as textContent, never as HTML.
 */
export const SCRIPT_CORE = String.raw`
  var PER_PAGE = 25;
  var KINDS = { http: ['routers', 'services', 'middlewares'], tcp: ['routers', 'services', 'middlewares'], udp: ['routers', 'services'] };
  var LABELS = { routers: 'Routers', services: 'Services', middlewares: 'Middlewares' };
  var SINGULAR = { routers: 'router', services: 'service', middlewares: 'middleware' };
  var SORTS = {
    routers: ['name', 'priority', 'status', 'rule', 'service', 'entryPoints', 'provider'],
    services: ['name', 'type', 'servers', 'status', 'provider'],
    middlewares: ['name', 'type', 'status', 'provider'],
  };
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var state = { generation: null, etag: null, sources: null, sourcesGeneration: -1, entryPoints: null, renderSeq: 0 };
  var searchTimer = null;

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function setAttrs(e, attrs) {
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (attrs[k] == null) return;
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'className') e.setAttribute('class', attrs[k]);
      else e.setAttribute(k, attrs[k]);
    });
    return e;
  }
  function svg(tag, attrs) { return setAttrs(document.createElementNS(SVG_NS, tag), attrs); }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : (many || one + 's')); }
  function qualified(name, provider) { return name.indexOf('@') === -1 ? name + '@' + provider : name; }
  function recordHash(protocol, kind, name) { return '#/' + protocol + '/' + kind + '/' + encodeURIComponent(name); }
  function recordLink(protocol, kind, name, extra) {
    return el('a', { href: recordHash(protocol, kind, name), className: 'mono', text: name, 'aria-label': extra ? SINGULAR[kind] + ' ' + name + ', ' + extra : null });
  }
  function badge(status, label) {
    return el('span', { className: 'badge ' + status, text: label || status });
  }
  function visuallyHidden(text) { return el('span', { className: 'sr-only', text: text }); }

  function request(path, headers) {
    return fetch('../api/' + path, { headers: Object.assign({ Accept: 'application/json' }, headers || {}), credentials: 'same-origin', cache: 'no-store' });
  }
  function api(path) {
    return request(path).then(function (res) {
      return res.text().then(function (text) {
        var body = null;
        try { body = JSON.parse(text); } catch (e) { body = null; }
        if (!res.ok) throw new Error((body && body.message) || text.trim() || ('HTTP ' + res.status));
        return { body: body, nextPage: res.headers.get('X-Next-Page'), total: res.headers.get('X-Total-Count') };
      });
    });
  }
  /** Every page of a list (the problems page), at most 50 pages of 100. */
  function apiAll(path) {
    var out = [];
    function step(page) {
      return api(path + (path.indexOf('?') === -1 ? '?' : '&') + 'per_page=100&page=' + page).then(function (r) {
        out = out.concat(r.body || []);
        if (r.nextPage && r.nextPage !== '1' && page < 50) return step(page + 1);
        return out;
      });
    }
    return step(1);
  }
  /** The sources of Kubernetes-made records (Portico's endpoint), fetched once per change. */
  function sources() {
    if (state.sources && state.sourcesGeneration === state.generation) return Promise.resolve(state.sources);
    return api('portico/sources').then(function (r) {
      state.sources = r.body || {};
      state.sourcesGeneration = state.generation;
      return state.sources;
    }).catch(function () { return {}; });
  }
  function sourceOf(all, protocol, kind, name) {
    return ((all[protocol] || {})[kind] || {})[name] || null;
  }
  function entryPoints() {
    if (state.entryPoints) return Promise.resolve(state.entryPoints);
    return apiAll('entrypoints').then(function (list) { state.entryPoints = list; return list; }).catch(function () { return []; });
  }

  /** The view a URL hash names: overview, problems, a list or a record. */
  function parseHash() {
    var h = location.hash.replace(/^#\/?/, '');
    var q = '';
    var qi = h.indexOf('?');
    if (qi !== -1) { q = h.slice(qi + 1); h = h.slice(0, qi); }
    var parts = h.split('/');
    var params = new URLSearchParams(q);
    if (parts[0] === '' || parts[0] === 'overview') return { view: 'overview' };
    if (parts[0] === 'problems') return { view: 'problems', params: params };
    var protocol = KINDS[parts[0]] ? parts[0] : 'http';
    var kind = KINDS[protocol].indexOf(parts[1]) !== -1 ? parts[1] : 'routers';
    var name = parts.length > 2 ? decodeURIComponent(parts.slice(2).join('/')) : null;
    return { view: name === null ? 'list' : 'detail', protocol: protocol, kind: kind, name: name,
      search: params.get('search') || '', status: params.get('status') || '',
      sortBy: params.get('sortBy') || '', direction: params.get('direction') === 'desc' ? 'desc' : '',
      namespace: params.get('namespace') || '', entryPoint: params.get('entryPoint') || '',
      page: Math.max(1, parseInt(params.get('page') || '1', 10) || 1) };
  }
  function listHash(s) {
    var p = new URLSearchParams();
    ['search', 'status', 'sortBy', 'direction', 'namespace', 'entryPoint'].forEach(function (k) { if (s[k]) p.set(k, s[k]); });
    if (s.page > 1) p.set('page', String(s.page));
    var q = p.toString();
    return '#/' + s.protocol + '/' + s.kind + (q ? '?' + q : '');
  }
  function withChanges(s, changes) {
    var next = {};
    Object.keys(s).forEach(function (k) { next[k] = s[k]; });
    Object.keys(changes).forEach(function (k) { next[k] = changes[k]; });
    return listHash(next);
  }

  function setTheme(theme) {
    if (theme) document.documentElement.setAttribute('data-theme', theme);
    else document.documentElement.removeAttribute('data-theme');
    var dark = theme ? theme === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
    var button = document.getElementById('theme');
    button.setAttribute('aria-pressed', dark ? 'true' : 'false');
    button.textContent = dark ? 'Light theme' : 'Dark theme';
  }
  function initTheme() {
    var saved = null;
    try { saved = localStorage.getItem('portico-theme'); } catch (e) { saved = null; }
    setTheme(saved === 'dark' || saved === 'light' ? saved : null);
    // Without a saved choice the page follows the system's scheme, also when it changes.
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () {
      setTheme(document.documentElement.getAttribute('data-theme'));
    });
    document.getElementById('theme').addEventListener('click', function () {
      var next = document.getElementById('theme').getAttribute('aria-pressed') === 'true' ? 'light' : 'dark';
      try { localStorage.setItem('portico-theme', next); } catch (e) { /* private mode */ }
      setTheme(next);
    });
  }

  /** Polls Portico's change counter with If-None-Match; a new generation re-renders the view. */
  function poll() {
    var headers = state.etag ? { 'If-None-Match': state.etag } : {};
    request('portico/changes', headers).then(function (res) {
      if (res.status === 304) return null;
      if (!res.ok) return null;
      state.etag = res.headers.get('ETag');
      return res.json().then(function (body) {
        var first = state.generation === null;
        state.generation = body.generation;
        if (!first) {
          var live = document.getElementById('live');
          live.textContent = 'Updated at ' + new Date().toLocaleTimeString();
          render(true);
        }
      });
    }).catch(function () { /* the next poll retries */ }).then(function () {
      setTimeout(poll, 1000);
    });
  }

  /** Keeps keyboard focus (and a search field's caret) across a live re-render. */
  function keepFocus(fn) {
    var active = document.activeElement;
    var id = active && active.id;
    var caret = active && typeof active.selectionStart === 'number' ? active.selectionStart : null;
    fn();
    if (!id) return;
    var again = document.getElementById(id);
    if (again && again !== document.activeElement) {
      again.focus();
      if (caret !== null && typeof again.setSelectionRange === 'function') again.setSelectionRange(caret, caret);
    }
  }
`;
