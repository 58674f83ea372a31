import { avgFieldLength } from './bm25.js';

/**
 * The statistics BM25 reads, as Lucene's IndexSearcher hands them to a weight (termStatistics,
 * collectionStatistics): a shard's own, or, with `search_type=dfs_query_then_fetch` over several
 * shards, every shard's summed before the query runs (ES's DFS phase and AggregatedDfs).
 *
 * Each scoring site asks through `fieldStatistics` and `termDocFreq` with the value it would use
 * on its own shard: that local value is what the DFS phase records (a blended document frequency
 * too, as cross_fields and fuzzy queries blend them before their weights ask), and what the query
 * phase falls back to for a field or term no shard recorded. Counting reads (how many postings,
 * whether a term has live documents) stay local: they are not statistics.
 */

/** A field's collection statistics as BM25 reads them: documents with the field, and the sum of their lengths (keyword fields: of their values). */
export interface FieldStatistics {
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
}

/** Where a query's scoring statistics come from (ExecContext.stats; the shard's own when absent). */
export interface ScoringStats {
  field(path: string, local: FieldStatistics): FieldStatistics;
  docFreq(path: string, term: string, local: number): number;
}

/** What scoring reads of a context: the statistics source, if any. */
export interface StatsContext {
  readonly stats?: ScoringStats | undefined;
}

/** The field statistics a weight uses, and the average length BM25 derives from them. */
export function fieldStatistics(ctx: StatsContext, path: string, docCount: number, sumTotalTermFreq: number): { readonly docCount: number; readonly avgdl: number } {
  const s = ctx.stats === undefined ? { docCount, sumTotalTermFreq } : ctx.stats.field(path, { docCount, sumTotalTermFreq });
  return { docCount: s.docCount, avgdl: avgFieldLength(s.sumTotalTermFreq, s.docCount) };
}

/** The document frequency a weight uses for `term` of `path`, given the one it would use on its own shard. */
export function termDocFreq(ctx: StatsContext, path: string, term: string, local: number): number {
  return ctx.stats === undefined ? local : ctx.stats.docFreq(path, term, local);
}

function termKey(path: string, term: string): string {
  return `${path}\u0000${term}`;
}

/**
 * The DFS phase on one shard: hands out the shard's own statistics and keeps every one asked for.
 * As in Lucene, a term without documents on the shard, or a field without any, has no statistics
 * to keep. A term asked twice keeps the last value asked (ES's map of terms does the same).
 */
export class StatsRecorder implements ScoringStats {
  readonly fields = new Map<string, FieldStatistics>();
  readonly terms = new Map<string, number>();

  field(path: string, local: FieldStatistics): FieldStatistics {
    if (local.docCount > 0) this.fields.set(path, local);
    return local;
  }

  docFreq(path: string, term: string, local: number): number {
    if (local > 0) this.terms.set(termKey(path, term), local);
    return local;
  }
}

/**
 * Every shard's recorded statistics summed (AggregatedDfs): each field's document count and
 * length sum, each term's document frequency. A field or term no shard recorded keeps the shard's
 * own value, as ES's ContextIndexSearcher falls back to it.
 */
export class GatheredStats implements ScoringStats {
  private readonly fields = new Map<string, FieldStatistics>();
  private readonly terms = new Map<string, number>();

  constructor(shards: readonly StatsRecorder[]) {
    for (const shard of shards) {
      for (const [path, s] of shard.fields) {
        const sum = this.fields.get(path);
        this.fields.set(path, sum === undefined ? s : { docCount: sum.docCount + s.docCount, sumTotalTermFreq: sum.sumTotalTermFreq + s.sumTotalTermFreq });
      }
      for (const [key, df] of shard.terms) this.terms.set(key, (this.terms.get(key) ?? 0) + df);
    }
  }

  field(path: string, local: FieldStatistics): FieldStatistics {
    return this.fields.get(path) ?? local;
  }

  docFreq(path: string, term: string, local: number): number {
    return this.terms.get(termKey(path, term)) ?? local;
  }
}
