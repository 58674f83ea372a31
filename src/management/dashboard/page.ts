/**
 * The dashboard's HTML shell and stylesheet: server-side markup with no external assets. The
 * behaviour lives in script.ts; records are always inserted as text, never as HTML. Colours are
 * variables with a light and a dark set: the dark one follows `prefers-color-scheme` unless the
 * toggle (saved in localStorage) chose one.
 */

const LIGHT = `--fg:#1d2330; --muted:#5b6475; --line:#dde2ea; --bg:#f6f7fa; --panel:#fff; --head:#fafbfc; --hover:#f3f6fd;
  --accent:#1d56d8; --accentbg:#e8efff; --ok:#16794c; --okbg:#e3f5ec; --warn:#8a5a00; --warnbg:#fff3d6; --err:#a1202c; --errbg:#fde6e8;
  --ring:#e6e9ef; --code:#f0f2f6; color-scheme: light;`;
const DARK = `--fg:#e4e8f0; --muted:#a3acbd; --line:#2f3747; --bg:#12161e; --panel:#1a1f2a; --head:#202635; --hover:#242b3a;
  --accent:#8fb2ff; --accentbg:#24314f; --ok:#6fd3a0; --okbg:#163528; --warn:#f2c465; --warnbg:#3a2f12; --err:#ff9aa5; --errbg:#43191f;
  --ring:#2c3343; --code:#10141b; color-scheme: dark;`;

export const DASHBOARD_CSS = String.raw`
:root { ${LIGHT} }
@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) { ${DARK} } }
:root[data-theme=dark] { ${DARK} }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
.sr-only { position:absolute; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden; clip:rect(0,0,0,0); white-space:nowrap; border:0; }
.skip { position:absolute; left:-9999px; top:4px; background:var(--panel); padding:6px 10px; z-index:10; }
.skip:focus { left:8px; }
header { display:flex; align-items:center; flex-wrap:wrap; gap:16px 24px; padding:10px 24px; background:var(--panel); border-bottom:1px solid var(--line); }
header .brand { font-size:18px; font-weight:700; margin:0; }
header .version { color:var(--muted); font-size:12px; }
header .spacer { flex:1; }
header button { padding:5px 10px; border:1px solid var(--line); border-radius:6px; background:var(--panel); color:var(--fg); cursor:pointer; font:inherit; }
#live { font-size:12px; color:var(--muted); }
nav.main a, nav.kinds a { text-decoration:none; color:var(--muted); padding:6px 10px; border-radius:6px; }
nav.main a.active, nav.kinds a.active { color:var(--accent); background:var(--accentbg); font-weight:600; }
nav.kinds { margin:0 0 8px; }
main { padding:16px 24px; max-width:1400px; margin:0 auto; }
.page-title { font-size:20px; margin:4px 0 12px; word-break:break-all; }
.page-title .kind { color:var(--muted); font-weight:500; }
.summary { margin:0 0 12px; }
.muted { color:var(--muted); }
.panel { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:12px 16px; margin-bottom:14px; }
.panel h2 { font-size:13px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted); margin:0 0 10px; }
.overview-grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(280px,1fr)); gap:14px; }
.cards { display:grid; grid-template-columns:repeat(auto-fill,minmax(250px,1fr)); gap:12px; }
.card { display:flex; gap:12px; align-items:center; background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:10px 14px; color:inherit; text-decoration:none; }
.card:hover { background:var(--hover); }
.card h3 { margin:0; font-size:12px; text-transform:uppercase; color:var(--muted); letter-spacing:.04em; }
.card .total { font-size:22px; font-weight:600; }
.legend { list-style:none; margin:0; padding:0; font-size:12px; }
.legend li::before { content:""; display:inline-block; width:8px; height:8px; border-radius:50%; margin-right:6px; }
.legend .ok::before { background:var(--ok); } .legend .warn::before { background:var(--warn); } .legend .err::before { background:var(--err); }
.chart { flex:none; transform:rotate(0deg); }
.chart circle { fill:none; stroke-width:6; }
.chart .ring { stroke:var(--ring); }
.chart .seg.ok { stroke:var(--ok); } .chart .seg.warn { stroke:var(--warn); } .chart .seg.err { stroke:var(--err); }
.chips { list-style:none; margin:0; padding:0; display:flex; flex-wrap:wrap; gap:6px; }
.chips li { background:var(--accentbg); color:var(--accent); border-radius:12px; padding:2px 10px; font-size:12px; font-weight:600; }
.toolbar { display:flex; flex-wrap:wrap; gap:8px; align-items:center; margin:8px 0 12px; }
.toolbar button, .toolbar input, .toolbar select, .pager button { padding:6px 10px; border:1px solid var(--line); border-radius:6px; background:var(--panel); color:var(--fg); font:inherit; }
.toolbar button, .pager button { cursor:pointer; }
.toolbar input { min-width:280px; }
table { width:100%; border-collapse:collapse; background:var(--panel); border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; background:var(--head); }
#records tbody tr, #problem-table tbody tr { cursor:pointer; }
tbody tr:hover { background:var(--hover); }
table.compact { width:auto; min-width:50%; margin-bottom:8px; }
tr.down td { background:var(--errbg); color:var(--err); font-weight:600; }
.mono, code { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; word-break:break-all; }
code.kubectl { display:block; background:var(--code); border:1px solid var(--line); border-radius:4px; padding:2px 6px; margin-top:2px; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; }
.badge.enabled { color:var(--ok); background:var(--okbg); }
.badge.warning { color:var(--warn); background:var(--warnbg); }
.badge.disabled { color:var(--err); background:var(--errbg); }
.why.disabled, .errors { color:var(--err); } .why.warning { color:var(--warn); }
.down-count { color:var(--err); font-weight:600; }
ul.errors { margin:0; padding-left:18px; }
.health-note { padding:8px 12px; border-radius:6px; font-weight:600; }
.health-note.warning { color:var(--warn); background:var(--warnbg); } .health-note.disabled { color:var(--err); background:var(--errbg); }
.pager { display:flex; gap:8px; align-items:center; margin-top:10px; }
.pager button:disabled { opacity:.4; cursor:default; }
.empty { padding:24px; text-align:center; color:var(--muted); background:var(--panel); border:1px solid var(--line); border-radius:8px; }
dl.fields { display:grid; grid-template-columns:minmax(120px,200px) 1fr; gap:4px 16px; margin:0 0 8px; }
dl.fields dt { color:var(--muted); }
dl.fields dd { margin:0; }
dl.fields dl.fields { margin:0; }
ul.values, ul.links { margin:0; padding-left:18px; }
details.raw pre { background:var(--code); padding:12px; border-radius:6px; overflow:auto; font-size:12.5px; border:1px solid var(--line); }
a.back { display:inline-block; margin-bottom:8px; text-decoration:none; }
.error-box { color:var(--err); background:var(--errbg); padding:10px 14px; border-radius:6px; }
ol.flow { list-style:none; display:flex; flex-wrap:wrap; gap:10px; padding:0; margin:0; }
ol.flow > li.stage { flex:1 1 160px; background:var(--head); border:1px solid var(--line); border-radius:8px; padding:8px 10px; position:relative; }
ol.flow > li.stage + li.stage::before { content:"\2192"; position:absolute; left:-12px; top:8px; color:var(--muted); }
ol.flow h3 { margin:0 0 6px; font-size:12px; text-transform:uppercase; color:var(--muted); }
ol.flow ul, ol.flow ol { margin:0; padding-left:16px; }
ol.flow li.down, ol.flow li.missing { color:var(--err); font-weight:600; }
ol.flow code.rule { display:block; margin-top:4px; }
`;

/** The page; app.js and app.css are relative, so a base path or a forwarded prefix works. */
export function dashboardHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Portico dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
<script src="app.js" defer></script>
</head>
<body>
<a class="skip" href="#view">Skip to content</a>
<header>
  <p class="brand">Portico</p>
  <nav class="main" aria-label="Sections">
    <a href="#/" data-nav="overview">Overview</a>
    <a href="#/http/routers" data-nav="http" data-protocol="http">HTTP</a>
    <a href="#/tcp/routers" data-nav="tcp" data-protocol="tcp">TCP</a>
    <a href="#/udp/routers" data-nav="udp" data-protocol="udp">UDP</a>
    <a href="#/problems" data-nav="problems">Problems</a>
  </nav>
  <span class="spacer"></span>
  <span id="live" role="status" aria-live="polite"></span>
  <button type="button" id="theme" aria-pressed="false">Dark theme</button>
  <span class="version" id="version"></span>
</header>
<main>
  <nav class="kinds" id="kinds" aria-label="Record kind" hidden></nav>
  <div id="view" tabindex="-1"></div>
</main>
<noscript>The dashboard needs JavaScript; the API is at <a href="../api/overview">../api/overview</a>.</noscript>
</body>
</html>
`;
}
