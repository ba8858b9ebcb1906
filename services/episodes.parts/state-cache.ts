/**
 * Every state of the users who read lately, in memory: the history, stats, saves, playlists and the
 * queue's join read a user's states on each request, and reading 20,000 of them from NeDB (a scan of
 * the user_id index and a deep copy each) cost more than the rest of the request.
 *
 * A user's entry is loaded whole on first use and patched on every write of their states (the
 * service re-reads the written ids from the store, see statesChanged); a load that a write overtook
 * is not kept. Least recently used users leave first once the cache holds more than its number of
 * states (a user's states cost ~150 bytes each).
 */
import type { EpisodeStateDoc } from "./model";
import { time } from "./model";

/** Derived figures kept per user. */
const MEMO_KEYS = 64;

export class UserStates {
  readonly byEpisode: Map<number, EpisodeStateDoc>;
  private listened: EpisodeStateDoc[] | null = null;
  /** Figures derived from the states (see memo), forgotten on a write. */
  private derived = new Map<string, unknown>();

  constructor(states: EpisodeStateDoc[]) {
    this.byEpisode = new Map(states.map((s) => [s.episode_id, s]));
  }

  all(): EpisodeStateDoc[] {
    return [...this.byEpisode.values()];
  }

  /** The history (states with a listen date), newest listen first, ties by episode id descending; kept until a write. */
  history(): readonly EpisodeStateDoc[] {
    if (!this.listened) {
      const keyed = this.all()
        .filter((s) => time(s.last_listened_at) > 0)
        .map((s) => ({ s, t: time(s.last_listened_at) }));
      keyed.sort((a, b) => b.t - a.t || b.s.episode_id - a.s.episode_id);
      this.listened = keyed.map((k) => k.s);
    }
    return this.listened;
  }

  /** A figure computed from these states only (and what `key` names), computed once until a write. */
  memo<T>(key: string, compute: () => T): T {
    if (!this.derived.has(key)) {
      // Keys that name a catalogue version or subscriptions gone stale are never asked again: a bound clears them.
      if (this.derived.size >= MEMO_KEYS) this.derived.clear();
      this.derived.set(key, compute());
    }
    return this.derived.get(key) as T;
  }

  /** The written states as the store now has them; `gone` were not found (deleted). */
  apply(found: EpisodeStateDoc[], gone: number[]): void {
    for (const s of found) this.byEpisode.set(s.episode_id, s);
    for (const id of gone) this.byEpisode.delete(id);
    this.listened = null;
    this.derived.clear();
  }
}

export class StateCache {
  private entries = new Map<number, UserStates>();
  private loading = new Map<number, Promise<UserStates>>();
  /** Writes seen per user: a load that started before a write answers its caller but is not kept. */
  private writes = new Map<number, number>();

  constructor(private readonly maxStates: number) {}

  /** The user's states, read with `read` when not cached (one read however many callers wait). */
  async get(user_id: number, read: () => Promise<EpisodeStateDoc[]>): Promise<UserStates> {
    const hit = this.entries.get(user_id);
    if (hit) {
      // Map order is the recency order: the entry moves to the end.
      this.entries.delete(user_id);
      this.entries.set(user_id, hit);
      return hit;
    }
    const pending = this.loading.get(user_id);
    if (pending) return pending;
    const seen = this.writes.get(user_id) ?? 0;
    const load = read().then((states) => {
      const entry = new UserStates(states);
      if ((this.writes.get(user_id) ?? 0) === seen) this.keep(user_id, entry);
      return entry;
    });
    this.loading.set(user_id, load);
    try {
      return await load;
    } finally {
      this.loading.delete(user_id);
    }
  }

  /** Is the user's entry in memory (so that a write should patch it)? */
  has(user_id: number): boolean {
    return this.entries.has(user_id);
  }

  /** A write of these states is about to be re-read: loads in flight must not be kept. Returns the write's number. */
  writing(user_id: number): number {
    const n = (this.writes.get(user_id) ?? 0) + 1;
    this.writes.set(user_id, n);
    this.loading.delete(user_id);
    return n;
  }

  /** The number of the user's latest write (a re-read of an older one must not be applied over a newer one's). */
  lastWrite(user_id: number): number {
    return this.writes.get(user_id) ?? 0;
  }

  /** Patches a cached user with re-read states (see UserStates.apply). */
  apply(user_id: number, found: EpisodeStateDoc[], gone: number[]): void {
    this.entries.get(user_id)?.apply(found, gone);
  }

  drop(user_id: number): void {
    this.writing(user_id);
    this.entries.delete(user_id);
  }

  private keep(user_id: number, entry: UserStates): void {
    this.entries.set(user_id, entry);
    let held = 0;
    for (const e of this.entries.values()) held += e.byEpisode.size;
    // The user just read stays, however many states they have.
    for (const [oldest, e] of this.entries) {
      if (held <= this.maxStates || oldest === user_id) break;
      this.entries.delete(oldest);
      held -= e.byEpisode.size;
    }
  }
}
