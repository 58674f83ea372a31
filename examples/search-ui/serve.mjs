// The search page's server: serves index.html and app.js, and forwards /es/<path> to Portico's
// search listener (the browser talks to one origin, so no CORS is needed). No dependencies.
//   PORTICO_SEARCH_URL=http://127.0.0.1:9200 PORT=8300 node examples/search-ui/serve.mjs
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const target = new URL(process.env.PORTICO_SEARCH_URL ?? 'http://127.0.0.1:9200');
const files = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
};

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  if (url.startsWith('/es/')) {
    const headers = { 'content-type': req.headers['content-type'] ?? 'application/json' };
    if (process.env.PORTICO_SEARCH_AUTH) headers.authorization = `Basic ${Buffer.from(process.env.PORTICO_SEARCH_AUTH).toString('base64')}`;
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: url.slice(3), headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/json' });
      r.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `Portico's search listener at ${target.origin} did not answer: ${err.message}` }));
    });
    req.pipe(upstream);
    return;
  }
  const file = files[url.split('?')[0]];
  if (file === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
    return;
  }
  res.writeHead(200, { 'content-type': file[1] });
  res.end(readFileSync(join(here, file[0])));
});

server.listen(Number(process.env.PORT ?? 8300), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`search page on http://${address}:${port}/ (searching ${target.origin})`);
});
