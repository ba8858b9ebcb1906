/**
 * The episodes service's compact in-memory index of the catalogue: for every episode only the fields
 * that filters, sorts and search read (no p20, links or enclosure data), grouped per podcast newest
 * first. Reads that would otherwise make NeDB scan and deep-copy 200,000 documents (playlists, search,
 * history joins) walk these rows and fetch whole documents only for the page they answer.
 *
 * The rows are kept up to date by the service on every episode write (see the catalog methods of
 * access.ts); the strings are the ones the store read gave, so the index adds the row objects and
 * arrays, not a second copy of the text.
 */
import type { EpisodeDoc } from "./model";

/**
 * What the index keeps of an episode (the same field names and types as the stored document). The
 * publication date is kept as its time in ms, not as a Date (~90 bytes a row, 90 MB at 1,000,000
 * episodes): `pub_date` makes one when asked, which only a page's rows are.
 */
export class CatalogRow {
  constructor(
    readonly _id: EpisodeDoc["_id"],
    readonly podcast_id: EpisodeDoc["podcast_id"],
    readonly title: string,
    /** pub_date in ms, 0 without one: the sort and window key. */
    readonly pub: number,
    /** Whether the episode has a publication date (pub 0 is also the epoch). */
    readonly dated: boolean,
    readonly duration: number,
    readonly enclosure_type: EpisodeDoc["enclosure_type"],
  ) {}

  get pub_date(): Date | null {
    return this.dated ? new Date(this.pub) : null;
  }
}

/** The stored fields a row is made of (a projection of the store). */
export const CATALOG_FIELDS = ["podcast_id", "title", "pub_date", "duration", "enclosure_type"] as const;

export function toRow(doc: Pick<EpisodeDoc, "_id" | (typeof CATALOG_FIELDS)[number]>): CatalogRow {
  const pub = doc.pub_date instanceof Date ? doc.pub_date.getTime() : doc.pub_date ? new Date(doc.pub_date).getTime() : NaN;
  const dated = !Number.isNaN(pub);
  return new CatalogRow(doc._id, doc.podcast_id, doc.title ?? "", dated ? pub : 0, dated, doc.duration ?? 0, doc.enclosure_type ?? null);
}

/** Bits of a podcast's trigram filter (8 KB a podcast). */
const GRAM_BITS = 1 << 16;
/** Code units as a case-insensitive, non-unicode RegExp compares them (Canonicalize of ECMA-262), built on first use. */
let canonTable: Uint16Array | null = null;

function canonical(): Uint16Array {
  if (!canonTable) {
    canonTable = new Uint16Array(65536);
    for (let c = 0; c < 65536; c++) {
      const u = String.fromCharCode(c).toUpperCase();
      canonTable[c] = u.length !== 1 || (c >= 128 && u.charCodeAt(0) < 128) ? c : u.charCodeAt(0);
    }
  }
  return canonTable;
}

/** Calls `each` with the bit of every trigram of `text` (of canonical code units). */
function trigramBits(text: string, each: (bit: number) => void): void {
  const canon = canonical();
  let a = 0;
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = canon[text.charCodeAt(i)];
    if (i >= 2) each((Math.imul(a, 961) + Math.imul(b, 31) + c) & (GRAM_BITS - 1));
    a = b;
    b = c;
  }
}

/** How many of these rows (newest first) were published after `after` (ms): a binary search for the first at or before it. */
export function countAfter(rows: readonly CatalogRow[], after: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].pub > after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Newest first, ties by id descending: the order of every "-pub_date, -_id" read. */
export function newestFirst(a: CatalogRow, b: CatalogRow): number {
  return b.pub - a.pub || b._id - a._id;
}

/**
 * Search hits (per podcast, newest first) with these rows added where missing, in order: a new map, the hits'
 * own lists untouched (they may be a kept answer). Rows of episodes no longer in the catalogue are undefined.
 */
export function withRows(hits: Map<number, CatalogRow[]>, rows: (CatalogRow | undefined)[]): Map<number, CatalogRow[]> {
  const added = new Map<number, CatalogRow[]>();
  for (const row of rows) {
    if (!row) continue;
    const list = added.get(row.podcast_id);
    if (list) list.push(row);
    else added.set(row.podcast_id, [row]);
  }
  if (!added.size) return hits;
  const out = new Map(hits);
  for (const [podcast_id, extra] of added) {
    const list = hits.get(podcast_id) ?? [];
    const have = new Set(list.map((r) => r._id));
    out.set(podcast_id, [...list, ...extra.filter((r) => !have.has(r._id))].sort(newestFirst));
  }
  return out;
}

export class CatalogIndex {
  private byId = new Map<number, CatalogRow>();
  private byPodcast = new Map<number, CatalogRow[]>();
  /** Podcasts whose list changed since it was last sorted (sorted on the next read, once). */
  private unsorted = new Set<number>();
  /** Bumped on every change: caches derived from the catalogue (search results) compare it. */
  version = 0;
  /**
   * Per podcast, a bit for every trigram of its titles and descriptions (started by the service on the
   * first search, then only added to: a bit left by a changed episode costs a needless scan, never a
   * missed match). Descriptions are not kept: the service adds their trigrams as it reads them.
   */
  private grams: Map<number, Uint32Array> | null = null;

  get size(): number {
    return this.byId.size;
  }

  get(id: number): CatalogRow | undefined {
    return this.byId.get(id);
  }

  /** Adds or replaces rows (an episode that moved podcast leaves its old list). */
  upsert(rows: CatalogRow[]): void {
    for (const row of rows) {
      const old = this.byId.get(row._id);
      if (old) this.detach(old);
      this.byId.set(row._id, row);
      let list = this.byPodcast.get(row.podcast_id);
      if (!list) this.byPodcast.set(row.podcast_id, (list = []));
      list.push(row);
      this.unsorted.add(row.podcast_id);
      this.addText(row.podcast_id, row.title);
    }
    if (rows.length) this.version++;
  }

  remove(ids: number[]): void {
    let changed = false;
    for (const id of ids) {
      const old = this.byId.get(id);
      if (!old) continue;
      this.detach(old);
      this.byId.delete(id);
      changed = true;
    }
    if (changed) this.version++;
  }

  podcastIds(): number[] {
    return [...this.byPodcast.keys()];
  }

  /** A podcast's episodes, newest first. The array is the index's own: read it, never change it. */
  podcast(podcast_id: number): readonly CatalogRow[] {
    const list = this.byPodcast.get(podcast_id);
    if (!list) return [];
    if (this.unsorted.delete(podcast_id)) list.sort(newestFirst);
    return list;
  }

  /** A podcast's episodes published after `after` (ms; null: all), newest first: a prefix of its list. */
  podcastSince(podcast_id: number, after: number | null): readonly CatalogRow[] {
    const list = this.podcast(podcast_id);
    return after === null ? list : list.slice(0, countAfter(list, after));
  }

  /** Starts the trigram filter with every title; from now on titles upserted and texts added are recorded. */
  startGrams(): void {
    this.grams = new Map();
    for (const row of this.byId.values()) this.addText(row.podcast_id, row.title);
  }

  /**
   * False when no episode of the podcast can match a case-insensitive RegExp of `term` in its title or
   * description: a match has every trigram of the term (compared as the RegExp compares them). Without
   * the filter started, true.
   */
  mayContain(podcast_id: number, term: string): boolean {
    if (!this.grams) return true;
    const bits = this.grams.get(podcast_id);
    if (!bits) return false;
    let all = true;
    trigramBits(term, (bit) => {
      if (!(bits[bit >>> 5] & (1 << (bit & 31)))) all = false;
    });
    return all;
  }

  /** Records the trigrams of a text (a title, a description) of one of the podcast's episodes, once the filter is started. */
  addText(podcast_id: number, text: string | null | undefined): void {
    if (!this.grams || !text) return;
    let bits = this.grams.get(podcast_id);
    if (!bits) this.grams.set(podcast_id, (bits = new Uint32Array(GRAM_BITS / 32)));
    trigramBits(text, (bit) => {
      bits[bit >>> 5] |= 1 << (bit & 31);
    });
  }

  private detach(row: CatalogRow): void {
    const list = this.byPodcast.get(row.podcast_id);
    if (!list) return;
    const at = list.indexOf(row);
    if (at !== -1) list.splice(at, 1);
    if (!list.length) this.byPodcast.delete(row.podcast_id);
  }
}
