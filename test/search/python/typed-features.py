"""Highlighting, aggregations and _analyze through the official Python clients' typed calls.

    typed-features.py <elasticsearch|opensearch> <url>

Creates the indices `shelf` (one shard) and `shelf2` (two; the test drops both first), writes the
same 30 books to each with helpers.bulk, then asks for highlighted hits, facets (terms with a
sub-aggregation, range, histogram, stats, cardinality, filters), _analyze (a built-in analyzer and
a field's), rescore, indices_boost, terminate_after (search and count), dfs_query_then_fetch and
_field_caps through each client's own methods, and prints what it saw as one JSON object, which
test/search/python-typed-features.int.test.ts checks.
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


def searched(kind, client, index, body, **params):
    """One search through the client's own search method: keyword arguments for elasticsearch, a body and URL parameters for opensearch-py."""
    if kind == "elasticsearch":
        return client.search(index=index, **body, **params)
    return client.search(index=index, body=body, params=params) if params else client.search(index=index, body=body)


def scores_by_id(res):
    return {h["_id"]: h["_score"] for h in res["hits"]["hits"]}


def search_features(kind, client):
    """rescore, indices_boost, terminate_after, dfs_query_then_fetch over two shards and _field_caps, through each client's own calls."""
    out = {}
    # Every book has "volume": rescored by "python" (weight 10), the python books come first.
    body = {
        "query": {"match": {"title": "volume"}},
        "size": 10,
        "rescore": {"window_size": 30, "query": {"rescore_query": {"match": {"title": "python"}}, "rescore_query_weight": 10}},
    }
    out["rescored"] = [int(h["_id"]) for h in searched(kind, client, "shelf", body)["hits"]["hits"]]
    plain = searched(kind, client, "shelf", {"query": {"match": {"title": "python rust"}}, "size": 30})
    boosted = searched(kind, client, "shelf", {"query": {"match": {"title": "python rust"}}, "size": 30, "indices_boost": [{"shelf": 2}]})
    out["boosted"] = all(boosted_score == 2 * scores_by_id(plain)[i] for i, boosted_score in scores_by_id(boosted).items()) and len(scores_by_id(boosted)) == 20
    limited = searched(kind, client, "shelf", {"query": {"match": {"title": "learning"}}, "size": 10}, terminate_after=4)
    out["terminated"] = [limited["terminated_early"], limited["hits"]["total"]["value"], sorted(int(h["_id"]) for h in limited["hits"]["hits"])]
    if kind == "elasticsearch":
        counted = client.count(index="shelf", query={"match": {"title": "python rust"}}, terminate_after=2)
    else:
        counted = client.count(index="shelf", body={"query": {"match": {"title": "python rust"}}}, params={"terminate_after": 2})
    out["count_terminated"] = [counted["terminated_early"], counted["count"]]
    # The same books in an index of two shards: dfs scores every hit as the one-shard index does.
    query = {"query": {"match": {"title": "python rust"}}, "size": 30}
    dfs = searched(kind, client, "shelf2", query, search_type="dfs_query_then_fetch")
    per_shard = searched(kind, client, "shelf2", query)
    out["dfs"] = [scores_by_id(dfs) == scores_by_id(plain), scores_by_id(per_shard) == scores_by_id(plain), dfs["_shards"]["total"]]
    if kind == "elasticsearch":
        # This client sends `fields` in the body, where ES 8 reads a string as one field name: a list.
        caps = client.field_caps(index="shelf", fields=["title", "n", "tag"])
    else:
        caps = client.field_caps(index="shelf", params={"fields": "title,n,tag"})
    out["field_caps"] = {f: [t, c["searchable"], c["aggregatable"]] for f, types in caps["fields"].items() for t, c in types.items()}
    return out


def elasticsearch_run(url):
    from elasticsearch import Elasticsearch, helpers

    es = Elasticsearch(url, request_timeout=60)
    es.indices.create(index="shelf", settings={"number_of_shards": 1, "number_of_replicas": 0}, mappings=MAPPINGS)
    es.indices.create(index="shelf2", settings={"number_of_shards": 2, "number_of_replicas": 0}, mappings=MAPPINGS)
    for index in ("shelf", "shelf2"):
        helpers.bulk(es, ({"_index": index, "_id": str(n), "_source": doc(n)} for n in range(1, N + 1)), refresh=True)
    search = es.search(index="shelf", query={"match": {"title": "python"}}, highlight=HIGHLIGHT, aggs=AGGS, size=3, sort=[{"n": "asc"}])
    # aggregations run over the query's matches: ask for them again over every book
    every = es.search(index="shelf", size=0, aggs=AGGS)
    analyzed = es.indices.analyze(analyzer="standard", text="The Quick-Brown fox")
    field_analyzed = es.indices.analyze(index="shelf", field="tag", text="Mixed Case")
    out = summarize(search, analyzed, field_analyzed)
    out["every"] = summarize(dict(every, hits={"total": every["hits"]["total"], "hits": []}), analyzed, field_analyzed)
    out["features"] = search_features("elasticsearch", es)
    return out


def opensearch_run(url):
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(hosts=[url], timeout=60)
    client.indices.create(index="shelf", body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": MAPPINGS})
    client.indices.create(index="shelf2", body={"settings": {"number_of_shards": 2, "number_of_replicas": 0}, "mappings": MAPPINGS})
    for index in ("shelf", "shelf2"):
        helpers.bulk(client, ({"_index": index, "_id": str(n), "_source": doc(n)} for n in range(1, N + 1)), refresh=True)
    search = client.search(index="shelf", body={"query": {"match": {"title": "python"}}, "highlight": HIGHLIGHT, "aggs": AGGS, "size": 3, "sort": [{"n": "asc"}]})
    every = client.search(index="shelf", body={"size": 0, "aggs": AGGS})
    analyzed = client.indices.analyze(body={"analyzer": "standard", "text": "The Quick-Brown fox"})
    field_analyzed = client.indices.analyze(index="shelf", body={"field": "tag", "text": "Mixed Case"})
    out = summarize(search, analyzed, field_analyzed)
    out["every"] = summarize(dict(every, hits={"total": every["hits"]["total"], "hits": []}), analyzed, field_analyzed)
    out["features"] = search_features("opensearch", client)
    return out


if __name__ == "__main__":
    which, url = sys.argv[1], sys.argv[2]
    result = elasticsearch_run(url) if which == "elasticsearch" else opensearch_run(url)
    print(json.dumps(result))
