/**
 * Recommendations from what this server already knows, nothing sent anywhere: the podcasts a user
 * may like among those other users of the server follow, and episodes they may like. Three signals,
 * each in [0, 1]:
 * - listeners: users whose subscriptions resemble this user's (cosine of the two sets) and what they
 *   subscribe to and listen to (collaborative filtering over the server's users);
 * - categories: the share of the user's interest (their podcasts, weighted by listening) in the
 *   candidate's categories;
 * - people: the share of the user's interest in people the candidate names (podcast:person, the
 *   people database's hosts), people the user follows counting double.
 * A user without subscriptions gets what is most followed and listened to on the server.
 */

/** A podcast as the scorer sees it (categories and people as written; they match case-insensitively). */
export interface RecPodcast {
  podcast_id: number;
  title: string;
  categories: string[];
  people: string[];
}

/** Listening of one user to one podcast (seconds heard, episodes completed). */
export interface RecListening {
  user_id: number;
  podcast_id: number;
  seconds: number;
  completed: number;
}

export interface RecInput {
  user_id: number;
  podcasts: RecPodcast[];
  /** Every subscription on the server: [user_id, podcast_id]. */
  subscriptions: [number, number][];
  listening: RecListening[];
  /** Lower-cased names of the people the user follows. */
  followed: string[];
}

export interface RecScore {
  podcast_id: number;
  score: number;
  reason: string;
  /** Each signal's part, for the reader of a ranking. */
  signals: { listeners: number; categories: number; people: number; popularity: number };
}

const WEIGHTS = { listeners: 0.45, categories: 0.35, people: 0.2 };
/** Popularity only breaks ties between otherwise equal candidates. */
const POPULARITY_WEIGHT = 0.02;

/** How much a user cares for a podcast they follow: more for what they listen to. */
function engagement(l: RecListening | undefined): number {
  return 1 + Math.log1p((l?.seconds ?? 0) / 600) + 0.5 * Math.log1p(l?.completed ?? 0);
}

/** The podcasts ranked for the user, best first (ties by id): those they do not follow. */
export function rankPodcasts(input: RecInput): RecScore[] {
  const { user_id } = input;
  const byId = new Map(input.podcasts.map((p) => [p.podcast_id, p]));
  const subsOf = new Map<number, Set<number>>();
  for (const [u, p] of input.subscriptions) if (byId.has(p)) subsOf.set(u, (subsOf.get(u) ?? new Set()).add(p));
  const listening = new Map(input.listening.map((l) => [`${l.user_id}:${l.podcast_id}`, l]));
  const mine = subsOf.get(user_id) ?? new Set<number>();
  const myWeight = (p: number) => engagement(listening.get(`${user_id}:${p}`));

  // The user's interest by category and by person, as shares of their whole interest.
  const cats = new Map<string, number>();
  const people = new Map<string, number>();
  let total = 0;
  for (const pid of mine) {
    const p = byId.get(pid)!;
    const w = myWeight(pid);
    total += w;
    for (const c of p.categories) cats.set(c.toLowerCase(), (cats.get(c.toLowerCase()) ?? 0) + w / p.categories.length);
    for (const n of p.people) people.set(n.toLowerCase(), (people.get(n.toLowerCase()) ?? 0) + w);
  }
  for (const n of input.followed) people.set(n, (people.get(n) ?? 0) + 2);
  const peopleTotal = [...people.values()].reduce((a, b) => a + b, 0);

  // Similar users, and how much each candidate is followed and heard by them, and by everyone.
  const similar = similarUsers(
    user_id,
    input.subscriptions.filter(([, p]) => byId.has(p)),
  );
  const heardBySimilar = new Map<number, number>();
  const heardByAll = new Map<number, number>();
  for (const [u, theirs] of subsOf) {
    if (u === user_id) continue;
    for (const p of theirs) {
      const e = engagement(listening.get(`${u}:${p}`));
      heardByAll.set(p, (heardByAll.get(p) ?? 0) + e);
      const sim = similar.get(u);
      if (sim) heardBySimilar.set(p, (heardBySimilar.get(p) ?? 0) + sim * e);
    }
  }
  const maxAll = Math.max(1, ...heardByAll.values());
  const maxSimilar = Math.max(0, ...heardBySimilar.values());

  const out: RecScore[] = [];
  for (const p of input.podcasts) {
    if (mine.has(p.podcast_id)) continue;
    const popularity = (heardByAll.get(p.podcast_id) ?? 0) / maxAll;
    const listeners = maxSimilar > 0 ? (heardBySimilar.get(p.podcast_id) ?? 0) / maxSimilar : 0;
    const categories = total ? Math.min(1, p.categories.reduce((a, c) => a + (cats.get(c.toLowerCase()) ?? 0), 0) / total) : 0;
    const personal = peopleTotal ? Math.min(1, p.people.reduce((a, n) => a + (people.get(n.toLowerCase()) ?? 0), 0) / peopleTotal) : 0;
    const score = WEIGHTS.listeners * listeners + WEIGHTS.categories * categories + WEIGHTS.people * personal + POPULARITY_WEIGHT * popularity;
    if (score <= 0) continue;
    out.push({
      podcast_id: p.podcast_id,
      score,
      reason: reasonFor(p, { listeners, categories, people: personal, popularity }, cats, people, input.followed),
      signals: { listeners, categories, people: personal, popularity },
    });
  }
  return out.sort((a, b) => b.score - a.score || a.podcast_id - b.podcast_id);
}

/** The strongest signal in words. */
function reasonFor(p: RecPodcast, s: RecScore["signals"], cats: Map<string, number>, people: Map<string, number>, followed: string[]): string {
  const parts = [
    { v: WEIGHTS.listeners * s.listeners, text: () => "Listeners with podcasts like yours follow it" },
    { v: WEIGHTS.categories * s.categories, text: () => `In ${best(p.categories, cats)}, which you listen to` },
    {
      v: WEIGHTS.people * s.people,
      text: () => {
        const who = best(p.people, people);
        return followed.includes(who.toLowerCase()) ? `With ${who}, whom you follow` : `With ${who}, from podcasts you listen to`;
      },
    },
  ].sort((a, b) => b.v - a.v);
  return parts[0].v > 0 ? parts[0].text() : "Popular on this server";
}

/** Of these names, the one with the most weight (weights by lower-cased name). */
function best(names: string[], weights: Map<string, number>): string {
  const w = (n: string) => weights.get(n.toLowerCase()) ?? 0;
  return [...names].sort((a, b) => w(b) - w(a))[0];
}

/** One user's hearing of one episode. */
export interface RecEpisodeListen {
  user_id: number;
  episode_id: number;
  podcast_id: number;
  /** Completed, or heard for most of it. */
  played: boolean;
}

export interface RecEpisode {
  episode_id: number;
  podcast_id: number;
  /** ms; 0 unknown. */
  pub: number;
}

/**
 * Episodes for the user, best first: of their podcasts and the podcasts recommended to them (affinity:
 * 1 for their own, the recommendation's share of the best one's score otherwise), those they have not
 * played, scored by how many similar users played them, the podcast's affinity and freshness.
 */
export function rankEpisodes(
  user_id: number,
  episodes: RecEpisode[],
  affinity: Map<number, number>,
  listens: RecEpisodeListen[],
  similar: Map<number, number>,
  now: number,
): { episode_id: number; score: number; reason: string }[] {
  const mine = new Set(listens.filter((l) => l.user_id === user_id).map((l) => l.episode_id));
  const playedBy = new Map<number, number>();
  for (const l of listens)
    if (l.played && l.user_id !== user_id) playedBy.set(l.episode_id, (playedBy.get(l.episode_id) ?? 0) + (similar.get(l.user_id) ?? 0.1));
  const maxPlayed = Math.max(0, ...playedBy.values());
  return episodes
    .filter((e) => !mine.has(e.episode_id) && affinity.has(e.podcast_id))
    .map((e) => {
      const heard = maxPlayed ? (playedBy.get(e.episode_id) ?? 0) / maxPlayed : 0;
      const fresh = e.pub ? Math.exp(-Math.max(0, now - e.pub) / (30 * 86_400_000)) : 0;
      const aff = affinity.get(e.podcast_id)!;
      const score = 0.5 * heard + 0.3 * aff + 0.2 * fresh;
      const reason =
        heard * 0.5 >= Math.max(aff * 0.3, fresh * 0.2) && heard > 0
          ? "Played by listeners like you"
          : aff >= 1
            ? "New in a podcast you follow"
            : "From a podcast recommended to you";
      return { episode_id: e.episode_id, score, reason };
    })
    .sort((a, b) => b.score - a.score || a.episode_id - b.episode_id);
}

/** Cosine similarity of the user's subscriptions with every other user's (those sharing at least one). */
export function similarUsers(user_id: number, subscriptions: [number, number][]): Map<number, number> {
  const subsOf = new Map<number, Set<number>>();
  for (const [u, p] of subscriptions) subsOf.set(u, (subsOf.get(u) ?? new Set()).add(p));
  const mine = subsOf.get(user_id) ?? new Set<number>();
  const out = new Map<number, number>();
  for (const [u, theirs] of subsOf) {
    if (u === user_id || !mine.size) continue;
    let shared = 0;
    for (const p of theirs) if (mine.has(p)) shared++;
    if (shared) out.set(u, shared / Math.sqrt(mine.size * theirs.size));
  }
  return out;
}
