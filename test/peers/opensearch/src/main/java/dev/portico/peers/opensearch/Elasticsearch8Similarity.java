package dev.portico.peers.opensearch;

import org.apache.lucene.search.similarities.BM25Similarity;
import org.opensearch.index.IndexModule;
import org.opensearch.plugins.Plugin;

/**
 * Elasticsearch 8's BM25, for the reference node: Lucene's BM25Similarity. OpenSearch 2.x scores
 * with Lucene's LegacyBM25Similarity, which multiplies every BM25 score by (k1 + 1) = 2.2 as
 * Elasticsearch 7 did; Elasticsearch 8 (and Portico, which follows it) does not. This plugin adds
 * the similarity type {@code es8_bm25}; test/search/opensearch-node.ts makes it every index's
 * default with an index template, so the node's scores are Elasticsearch 8's.
 */
public final class Elasticsearch8Similarity extends Plugin {
  /** The similarity type this plugin adds (index setting {@code index.similarity.default.type}). */
  public static final String TYPE = "es8_bm25";

  @Override
  public void onIndexModule(IndexModule module) {
    // k1 = 1.2, b = 0.75 and discount_overlaps = true: Elasticsearch 8's defaults for BM25.
    module.addSimilarity(TYPE, (settings, version, scripts) -> new BM25Similarity(
        settings.getAsFloat("k1", 1.2f), settings.getAsFloat("b", 0.75f), settings.getAsBoolean("discount_overlaps", true)));
  }
}
