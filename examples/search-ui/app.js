// The search page's logic: one _search per change of the query, the filters or the page, asking
// for hits (from/size), highlights, two terms aggregations (the facets) and a term suggester
// ("did you mean"). Plain DOM, no dependencies.
const INDEX = new URLSearchParams(location.search).get('index') ?? 'packages';
const SIZE = 10;
const MAX_WINDOW = 10_000; // index.max_result_window: from + size may not pass it
// Highlight tags no document holds, so that the text can be escaped before <mark> is put in.
const PRE = '\u0001';
const POST = '\u0002';

const state = { q: '', from: 0, filters: { section: undefined, priority: undefined } };
const $ = (id) => document.getElementById(id);

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const marked = (fragment) => escapeHtml(fragment).replaceAll(PRE, '<mark>').replaceAll(POST, '</mark>');

function body() {
  const filter = Object.entries(state.filters).filter(([, v]) => v !== undefined).map(([field, value]) => ({ term: { [field]: value } }));
  const must = state.q === '' ? { match_all: {} } : { multi_match: { query: state.q, fields: ['package^3', 'summary^2', 'description'] } };
  const req = {
    query: { bool: { must, filter } },
    from: state.from,
    size: SIZE,
    track_total_hits: true,
    _source: ['package', 'version', 'section', 'priority', 'summary'],
    highlight: { pre_tags: [PRE], post_tags: [POST], fields: { summary: { number_of_fragments: 0 }, description: { fragment_size: 160, number_of_fragments: 2 } } },
    aggs: { section: { terms: { field: 'section', size: 12 } }, priority: { terms: { field: 'priority', size: 6 } } },
  };
  if (state.q !== '') req.suggest = { text: state.q, spelling: { term: { field: 'summary' } } };
  return req;
}

/** The query with each misspelled word replaced by the suggester's best option, or undefined. */
function didYouMean(suggest) {
  const entries = suggest?.spelling ?? [];
  let changed = false;
  let text = state.q;
  for (const e of [...entries].reverse()) {
    const best = e.options[0];
    if (best === undefined) continue;
    changed = true;
    text = text.slice(0, e.offset) + best.text + text.slice(e.offset + e.length);
  }
  return changed ? text : undefined;
}

function renderFacet(name, buckets) {
  const ul = $(`facet-${name}`);
  ul.replaceChildren(
    ...buckets.map((b) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      const on = state.filters[name] === b.key;
      button.setAttribute('aria-pressed', String(on));
      button.dataset.facet = name;
      button.dataset.value = b.key;
      button.innerHTML = `<span>${escapeHtml(b.key)}</span> <span class="count">${b.doc_count}</span>`;
      button.addEventListener('click', () => {
        state.filters[name] = on ? undefined : b.key;
        state.from = 0;
        void run();
      });
      li.append(button);
      return li;
    }),
  );
}

function renderHits(hits) {
  $('results').replaceChildren(
    ...hits.hits.map((h) => {
      const li = document.createElement('li');
      const s = h._source;
      const summary = h.highlight?.summary?.[0] ?? escapeHtml(s.summary ?? '');
      const description = (h.highlight?.description ?? []).map(marked).join(' … ');
      li.innerHTML =
        `<div class="title">${escapeHtml(s.package)} <span class="meta">${escapeHtml(s.version ?? '')} · ${escapeHtml(s.section ?? '')} · ${escapeHtml(s.priority ?? '')}</span></div>` +
        `<div class="summary">${h.highlight?.summary ? marked(summary) : summary}</div>` +
        (description === '' ? '' : `<div class="description meta">${description}</div>`);
      return li;
    }),
  );
}

async function run() {
  const status = $('status');
  let answer;
  try {
    const res = await fetch(`/es/${encodeURIComponent(INDEX)}/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
    answer = await res.json();
    if (!res.ok) throw new Error(answer.error?.reason ?? answer.error ?? `HTTP ${res.status}`);
  } catch (err) {
    status.innerHTML = `<span class="error">Search failed: ${escapeHtml(String(err.message ?? err))}</span>`;
    return;
  }
  const total = answer.hits.total.value;
  const first = total === 0 ? 0 : state.from + 1;
  const last = Math.min(state.from + SIZE, total);
  status.textContent = total === 0 ? 'No packages found.' : `Results ${first}–${last} of ${total} (${answer.took} ms)`;
  renderHits(answer.hits);
  renderFacet('section', answer.aggregations.section.buckets);
  renderFacet('priority', answer.aggregations.priority.buckets);
  const suggestion = didYouMean(answer.suggest);
  const p = $('suggestion');
  p.hidden = suggestion === undefined;
  if (suggestion !== undefined) {
    p.innerHTML = `Did you mean <a href="#" id="corrected">${escapeHtml(suggestion)}</a>?`;
    $('corrected').addEventListener('click', (e) => {
      e.preventDefault();
      $('q').value = suggestion;
      state.q = suggestion;
      state.from = 0;
      void run();
    });
  }
  const pages = Math.max(1, Math.ceil(Math.min(total, MAX_WINDOW) / SIZE));
  $('page').textContent = `Page ${Math.floor(state.from / SIZE) + 1} of ${pages}`;
  $('prev').disabled = state.from === 0;
  $('next').disabled = state.from + SIZE >= Math.min(total, MAX_WINDOW);
}

$('search').addEventListener('submit', (e) => {
  e.preventDefault();
  state.q = $('q').value.trim();
  state.from = 0;
  void run();
});
$('prev').addEventListener('click', () => {
  state.from = Math.max(0, state.from - SIZE);
  void run();
});
$('next').addEventListener('click', () => {
  state.from += SIZE;
  void run();
});
void run();
