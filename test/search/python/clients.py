"""Drives Portico's search listener with the official Python clients, through their own typed calls.

    clients.py <elasticsearch|opensearch> <url>

Creates an index, writes documents (index, helpers.bulk), then reads them back every way a client
pages: from/size, search_after, scroll (helpers.scan), a point in time (elasticsearch only:
opensearch-py's PIT calls use OpenSearch's own _search/point_in_time API), count, mget, get and
delete; and an error. Prints what it saw as one JSON object, which
test/search/python-clients.int.test.ts checks; a client-side failure is an exception (exit 1).
"""

import json
import sys

N = 201  # documents: n = 1..201, title "… python …" when n is odd


def doc(n):
    return {"title": f"book {n} python" if n % 2 else f"book {n}", "n": n, "tag": f"t{n % 3}"}


MAPPINGS = {"properties": {"title": {"type": "text"}, "n": {"type": "integer"}, "tag": {"type": "keyword"}}}


def elasticsearch_run(url):
    from elasticsearch import BadRequestError, Elasticsearch, NotFoundError, helpers

    es = Elasticsearch(url, request_timeout=60)
    out = {"info": es.info()["version"]["number"]}
    es.indices.create(index="books", settings={"number_of_shards": 1, "number_of_replicas": 0}, mappings=MAPPINGS)
    es.index(index="books", id="1", document=doc(1), refresh=True)
    ok, errors = helpers.bulk(es, ({"_index": "books", "_id": str(n), "_source": doc(n)} for n in range(2, N + 1)), refresh=True)
    out["bulk"] = [ok, len(errors)]
    out["count"] = es.count(index="books")["count"]
    out["count_python"] = es.count(index="books", query={"match": {"title": "python"}})["count"]
    page = es.search(index="books", query={"match": {"title": "python"}}, from_=10, size=5, sort=[{"n": "asc"}])
    out["page"] = [h["_source"]["n"] for h in page["hits"]["hits"]]
    out["page_total"] = page["hits"]["total"]
    walked, after = [], None
    while True:
        kwargs = {"search_after": after} if after is not None else {}
        res = es.search(index="books", size=50, sort=[{"n": "desc"}], query={"match_all": {}}, **kwargs)
        hits = res["hits"]["hits"]
        if not hits:
            break
        walked += [h["_source"]["n"] for h in hits]
        after = hits[-1]["sort"]
    out["search_after"] = walked
    out["scan"] = sorted(h["_source"]["n"] for h in helpers.scan(es, index="books", query={"query": {"match": {"title": "python"}}}, size=20))
    pit = es.open_point_in_time(index="books", keep_alive="1m")["id"]
    es.index(index="books", id="late", document=doc(1000), refresh=True)  # not in the point in time
    in_pit, after = [], None
    while True:
        kwargs = {"search_after": after} if after is not None else {}
        res = es.search(pit={"id": pit, "keep_alive": "1m"}, size=70, sort=[{"n": "asc"}], **kwargs)
        hits = res["hits"]["hits"]
        if not hits:
            break
        in_pit += [h["_source"]["n"] for h in hits]
        after = hits[-1]["sort"]
        pit = res["pit_id"]
    out["pit"] = [len(in_pit), in_pit[0], in_pit[-1]]
    out["pit_closed"] = es.close_point_in_time(id=pit)["succeeded"]
    out["mget"] = [d["found"] for d in es.mget(index="books", ids=["1", "2", "nope"])["docs"]]
    out["delete"] = es.delete(index="books", id="1", refresh=True)["result"]
    try:
        es.get(index="books", id="1")
        out["get_deleted"] = "found"
    except NotFoundError as e:
        out["get_deleted"] = e.meta.status
    out["count_after_delete"] = es.count(index="books")["count"]
    try:
        es.indices.create(index="bad", mappings={"properties": {"t": {"type": "text", "analyzer": "whitespace"}}})
        out["refused"] = "accepted"
    except BadRequestError as e:
        out["refused"] = e.error
    return out


def opensearch_run(url):
    from opensearchpy import NotFoundError, OpenSearch, RequestError, helpers

    client = OpenSearch(hosts=[url], timeout=60)
    out = {"info": client.info()["version"]["number"]}
    client.indices.create(index="books", body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": MAPPINGS})
    client.index(index="books", id="1", body=doc(1), refresh=True)
    ok, errors = helpers.bulk(client, ({"_index": "books", "_id": str(n), "_source": doc(n)} for n in range(2, N + 1)), refresh=True)
    out["bulk"] = [ok, len(errors)]
    out["count"] = client.count(index="books")["count"]
    out["count_python"] = client.count(index="books", body={"query": {"match": {"title": "python"}}})["count"]
    page = client.search(index="books", body={"query": {"match": {"title": "python"}}, "from": 10, "size": 5, "sort": [{"n": "asc"}]})
    out["page"] = [h["_source"]["n"] for h in page["hits"]["hits"]]
    out["page_total"] = page["hits"]["total"]
    walked, after = [], None
    while True:
        body = {"size": 50, "sort": [{"n": "desc"}], "query": {"match_all": {}}}
        if after is not None:
            body["search_after"] = after
        hits = client.search(index="books", body=body)["hits"]["hits"]
        if not hits:
            break
        walked += [h["_source"]["n"] for h in hits]
        after = hits[-1]["sort"]
    out["search_after"] = walked
    out["scan"] = sorted(h["_source"]["n"] for h in helpers.scan(client, index="books", query={"query": {"match": {"title": "python"}}}, size=20))
    out["mget"] = [d["found"] for d in client.mget(index="books", body={"ids": ["1", "2", "nope"]})["docs"]]
    out["delete"] = client.delete(index="books", id="1", refresh=True)["result"]
    try:
        client.get(index="books", id="1")
        out["get_deleted"] = "found"
    except NotFoundError as e:
        out["get_deleted"] = e.status_code
    out["count_after_delete"] = client.count(index="books")["count"]
    try:
        client.indices.create(index="bad", body={"mappings": {"properties": {"t": {"type": "text", "analyzer": "whitespace"}}}})
        out["refused"] = "accepted"
    except RequestError as e:
        out["refused"] = e.error
    return out


if __name__ == "__main__":
    which, url = sys.argv[1], sys.argv[2]
    result = elasticsearch_run(url) if which == "elasticsearch" else opensearch_run(url)
    print(json.dumps(result))
