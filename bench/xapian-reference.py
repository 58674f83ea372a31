#!/usr/bin/python3
"""Xapian reference for bench/search-bench.ts: index the same documents in-process with BM25 and
time the same match queries at the same depths with get_mset(from, size).

Usage: /usr/bin/python3 bench/xapian-reference.py CORPUS.ndjson.gz COPIES ROUNDS QUERIES_JSON DEPTHS_JSON
Prints one JSON object on stdout: {"index_docs_per_s", "depths": {from: {"median_ms", "p95_ms"}}}.
Needs Debian's python3-xapian (apt-get install python3-xapian).
"""
import gzip
import json
import statistics
import sys
import tempfile
import time

try:
    import xapian
except ImportError:
    sys.stderr.write("python3-xapian is missing: apt-get install python3-xapian\n")
    sys.exit(3)

corpus, copies, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
queries = json.loads(sys.argv[4])
depths = json.loads(sys.argv[5])

with gzip.open(corpus, "rt", encoding="utf-8") as fh:
    lines = [l for l in fh if l.strip()]

db = xapian.WritableDatabase(tempfile.mkdtemp(prefix="xapian-bench-"), xapian.DB_CREATE_OR_OVERWRITE)
tg = xapian.TermGenerator()  # no stemmer: plain lowercased words, like the standard analyzer
start = time.perf_counter()
n = 0
for c in range(copies):
    for line in lines:
        doc_json = json.loads(line)
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(doc_json.get("description") or "")
        doc.set_data(line)
        db.add_document(doc)
        n += 1
db.commit()
index_rate = n / (time.perf_counter() - start)

enquire = xapian.Enquire(db)
enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0))
qp = xapian.QueryParser()
qp.set_database(db)
qp.set_default_op(xapian.Query.OP_OR)
parsed = [qp.parse_query(q.lower(), 0) for q in queries]


def run(q, frm):
    enquire.set_query(q)
    mset = enquire.get_mset(frm, 10)
    for m in mset:
        m.document.get_data()


for _ in range(2):  # warm up on every depth, as the Portico run does
    for frm in depths:
        for q in parsed:
            run(q, frm)

out = {}
for frm in depths:
    samples = []
    for _ in range(rounds):
        for q in parsed:
            t0 = time.perf_counter()
            run(q, frm)
            samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    out[str(frm)] = {"median_ms": statistics.median(samples), "p95_ms": samples[int(len(samples) * 0.95) - 1]}

print(json.dumps({"index_docs_per_s": index_rate, "depths": out}))
