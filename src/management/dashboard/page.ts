/**
 * The dashboard's HTML shell and stylesheet: server-side markup with no external assets. The
 * behaviour lives in script.ts; records are always inserted as text, never as HTML.
 */

export const DASHBOARD_CSS = String.raw`
:root { --fg:#1d2330; --muted:#5b6475; --line:#dde2ea; --bg:#f6f7fa; --accent:#2463eb;
  --ok:#16794c; --okbg:#e3f5ec; --warn:#8a5a00; --warnbg:#fff3d6; --err:#a1202c; --errbg:#fde6e8; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; align-items:center; gap:24px; padding:12px 24px; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:18px; margin:0; }
header .version { color:var(--muted); font-size:12px; }
nav.protocols a, nav.kinds a { text-decoration:none; color:var(--muted); padding:6px 10px; border-radius:6px; }
nav.protocols a.active, nav.kinds a.active { color:var(--accent); background:#e8efff; font-weight:600; }
main { padding:16px 24px; max-width:1400px; margin:0 auto; }
section.overview { display:grid; grid-template-columns:repeat(auto-fill,minmax(190px,1fr)); gap:12px; margin-bottom:16px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 14px; }
.card h3 { margin:0 0 4px; font-size:12px; text-transform:uppercase; color:var(--muted); letter-spacing:.04em; }
.card .total { font-size:22px; font-weight:600; }
.card .sub { font-size:12px; color:var(--muted); }
.toolbar { display:flex; flex-wrap:wrap; gap:8px; align-items:center; margin:12px 0; }
.toolbar button { padding:6px 10px; border:1px solid var(--line); border-radius:6px; background:#fff; cursor:pointer; font:inherit; }
.toolbar input, .toolbar select { padding:6px 8px; border:1px solid var(--line); border-radius:6px; font:inherit; background:#fff; }
.toolbar input { min-width:280px; }
table { width:100%; border-collapse:collapse; background:#fff; border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { text-align:left; padding:8px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; background:#fafbfc; }
tbody tr { cursor:pointer; }
tbody tr:hover { background:#f3f6fd; }
td.mono, .mono { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; word-break:break-all; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; }
.badge.enabled { color:var(--ok); background:var(--okbg); }
.badge.warning { color:var(--warn); background:var(--warnbg); }
.badge.disabled { color:var(--err); background:var(--errbg); }
.pager { display:flex; gap:8px; align-items:center; margin-top:10px; }
.pager button { padding:5px 12px; border:1px solid var(--line); border-radius:6px; background:#fff; cursor:pointer; }
.pager button:disabled { opacity:.4; cursor:default; }
.empty { padding:24px; text-align:center; color:var(--muted); background:#fff; border:1px solid var(--line); border-radius:8px; }
.detail { background:#fff; border:1px solid var(--line); border-radius:8px; padding:16px 20px; }
.detail h2 { margin:0 0 12px; font-size:18px; word-break:break-all; }
.detail dl { display:grid; grid-template-columns:160px 1fr; gap:6px 16px; margin:0 0 16px; }
.detail dt { color:var(--muted); }
.detail dd { margin:0; }
.detail ul.errors { color:var(--err); margin:0; padding-left:18px; }
.detail pre { background:#0f1420; color:#dfe6f3; padding:12px; border-radius:6px; overflow:auto; font-size:12.5px; }
a.back { display:inline-block; margin-bottom:10px; color:var(--accent); text-decoration:none; }
.error-box { color:var(--err); background:var(--errbg); padding:10px 14px; border-radius:6px; }
`;

/** The page; `assetBase` is where app.js and app.css are served (relative, so a base path works). */
export function dashboardHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
<script src="app.js" defer></script>
</head>
<body>
<header>
  <h1>Portico</h1>
  <nav class="protocols" aria-label="Protocol">
    <a href="#/http/routers" data-protocol="http">HTTP</a>
    <a href="#/tcp/routers" data-protocol="tcp">TCP</a>
    <a href="#/udp/routers" data-protocol="udp">UDP</a>
  </nav>
  <span class="version" id="version"></span>
</header>
<main>
  <section class="overview" id="overview" aria-label="Overview"></section>
  <nav class="kinds" id="kinds" aria-label="Resource"></nav>
  <div id="view"></div>
</main>
<noscript>The dashboard needs JavaScript; the API is at <a href="../api/overview">../api/overview</a>.</noscript>
</body>
</html>
`;
}
