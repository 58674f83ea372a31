// Loads newline-delimited JSON documents (optionally gzipped) into a Portico (or Elasticsearch)
// index with _bulk, 1,000 at a time. No dependencies.
//   node examples/search-ui/load.mjs <file.ndjson[.gz]> [index (default packages)] [limit]
//   PORTICO_SEARCH_URL sets the search listener (default http://127.0.0.1:9200).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const [file, index = 'packages', limit] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node examples/search-ui/load.mjs <file.ndjson[.gz]> [index] [limit]');
  process.exit(2);
}
const base = process.env.PORTICO_SEARCH_URL ?? 'http://127.0.0.1:9200';
const raw = readFileSync(file);
const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
let docs = text.split('\n').filter((l) => l.trim() !== '');
if (limit !== undefined) docs = docs.slice(0, Number(limit));

const put = await fetch(`${base}/${index}`, {
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ mappings: { properties: { package: { type: 'keyword' }, section: { type: 'keyword' }, priority: { type: 'keyword' }, summary: { type: 'text' }, description: { type: 'text' } } } }),
});
if (put.status !== 200 && put.status !== 400) throw new Error(`creating ${index}: ${put.status} ${await put.text()}`);
for (let i = 0; i < docs.length; i += 1000) {
  const body = docs.slice(i, i + 1000).map((d) => `{"index":{}}\n${d}\n`).join('');
  const res = await fetch(`${base}/${index}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
  const answer = await res.json();
  if (res.status !== 200 || answer.errors) throw new Error(`bulk at ${i}: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
}
await fetch(`${base}/${index}/_refresh`, { method: 'POST' });
console.log(`loaded ${docs.length} documents into ${index}`);
