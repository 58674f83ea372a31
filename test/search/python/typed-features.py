"""Highlighting, aggregations and _analyze through the official Python clients' typed calls.

    typed-features.py <elasticsearch|opensearch> <url>

Creates the index `shelf` (the test drops it first), writes 30 books with helpers.bulk, then asks
for highlighted hits, facets (terms with a sub-aggregation, range, histogram, stats, cardinality,
filters) and _analyze (a built-in analyzer and a field's) through each client's own methods, and
prints what it saw as one JSON object, which test/search/python-typed-features.int.test.ts checks.
"""

import json
import sys

N = 30
MAPPINGS = {"properties": {"title": {"type": "text"}, "n": {"type": "integer"}, "tag": {"type": "keyword"}}}
HIGHLIGHT = {"pre_tags": ["<b>"], "post_tags": ["</b>"], "fields": {"title": {}}}
AGGS = {
    "tags": {"terms": {"field": "tag", "order": {"_key": "asc"}}, "aggs": {"top_n": {"max": {"field": "n"}}}},
    "ranges": {"range": {"field": "n", "ranges": [{"to": 10}, {"from": 10, "to": 20}, {"from": 20}]}},
    "hist": {"histogram": {"field": "n", "interval": 10}},
    "stats": {"stats": {"field": "n"}},
    "distinct_tags": {"cardinality": {"field": "tag"}},
    "kinds": {"filters": {"filters": {"python": {"match": {"title": "python"}}, "rust": {"match": {"title": "rust"}}}}},
}


def doc(n):
    lang = "python" if n % 3 == 0 else "rust" if n % 3 == 1 else "go"
    return {"title": f"Learning {lang} the hard way, volume {n}", "n": n, "tag": f"t{n % 4}"}


def summarize(search, analyzed, field_analyzed):
    aggs = search["aggregations"]
    return {
        "total": search["hits"]["total"]["value"],
        "highlights": sorted(h["highlight"]["title"][0] for h in search["hits"]["hits"]),
        "tags": [[b["key"], b["doc_count"], b["top_n"]["value"]] for b in aggs["tags"]["buckets"]],
        "ranges": [[b["key"], b["doc_count"]] for b in aggs["ranges"]["buckets"]],
        "hist": [[b["key"], b["doc_count"]] for b in aggs["hist"]["buckets"]],
        "stats": aggs["stats"],
        "distinct_tags": aggs["distinct_tags"]["value"],
        "kinds": {k: v["doc_count"] for k, v in aggs["kinds"]["buckets"].items()},
        "analyze": [[t["token"], t["position"], t["start_offset"], t["end_offset"]] for t in analyzed["tokens"]],
        "analyze_field": [t["token"] for t in field_analyzed["tokens"]],
    }


def elasticsearch_run(url):
    from elasticsearch import Elasticsearch, helpers

    es = Elasticsearch(url, request_timeout=60)
    es.indices.create(index="shelf", settings={"number_of_shards": 1, "number_of_replicas": 0}, mappings=MAPPINGS)
    helpers.bulk(es, ({"_index": "shelf", "_id": str(n), "_source": doc(n)} for n in range(1, N + 1)), refresh=True)
    search = es.search(index="shelf", query={"match": {"title": "python"}}, highlight=HIGHLIGHT, aggs=AGGS, size=3, sort=[{"n": "asc"}])
    # aggregations run over the query's matches: ask for them again over every book
    every = es.search(index="shelf", size=0, aggs=AGGS)
    analyzed = es.indices.analyze(analyzer="standard", text="The Quick-Brown fox")
    field_analyzed = es.indices.analyze(index="shelf", field="tag", text="Mixed Case")
    out = summarize(search, analyzed, field_analyzed)
    out["every"] = summarize(dict(every, hits={"total": every["hits"]["total"], "hits": []}), analyzed, field_analyzed)
    return out


def opensearch_run(url):
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(hosts=[url], timeout=60)
    client.indices.create(index="shelf", body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": MAPPINGS})
    helpers.bulk(client, ({"_index": "shelf", "_id": str(n), "_source": doc(n)} for n in range(1, N + 1)), refresh=True)
    search = client.search(index="shelf", body={"query": {"match": {"title": "python"}}, "highlight": HIGHLIGHT, "aggs": AGGS, "size": 3, "sort": [{"n": "asc"}]})
    every = client.search(index="shelf", body={"size": 0, "aggs": AGGS})
    analyzed = client.indices.analyze(body={"analyzer": "standard", "text": "The Quick-Brown fox"})
    field_analyzed = client.indices.analyze(index="shelf", body={"field": "tag", "text": "Mixed Case"})
    out = summarize(search, analyzed, field_analyzed)
    out["every"] = summarize(dict(every, hits={"total": every["hits"]["total"], "hits": []}), analyzed, field_analyzed)
    return out


if __name__ == "__main__":
    which, url = sys.argv[1], sys.argv[2]
    result = elasticsearch_run(url) if which == "elasticsearch" else opensearch_run(url)
    print(json.dumps(result))
