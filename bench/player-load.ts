/**
 * The mixed player load (16 clients, 11 operations) and what it proves after a run: players each cycling
 * through what an app does while it plays (8 reads over the accounts, library, downloads and sync groups;
 * a position saved, an episode queued, an API key created or checked), every answer recorded. Afterwards verify()
 * reads the state back: every write acknowledged is there, and each key creation that answered an error
 * (503, or its connection broke) made one key at most; each player's position is the last one it was
 * told was saved, or a later one whose call failed in flight. Used by bench/kill.bench.ts and the cluster tests.
 */
export const CLIENTS = 16;
/** A player's pause between two requests (the load of 16 players, not of 16 benchmark loops). */
const THINK_MS = 50;

export interface LoadSetup {
  /** The gateways to spread requests over, read per request (like a Service's endpoints). */
  gateways: () => string[];
  key: string;
  userId: number;
  /** Episodes of the user's subscription: one per client for its position, all of them queued in turn. */
  episodes: number[];
}

interface Op {
  name: string;
  write: boolean;
  /** Safe to send again after its connection broke (reads, and writes that set a value). */
  repeatSafe: boolean;
  send(base: string, client: number, n: number): Promise<Response>;
}

export interface LoadReport {
  requests: number;
  readFailures: string[];
  writeFailures: string[];
  /** Writes that answered 503 or lost their connection: each may or may not have been applied, once at most. */
  writeErrors: number;
  /** When each of them answered (Date.now()). */
  writeErrorsAt: number[];
  /** Each of them: when it started and answered, the operation, whether it is safe to repeat, the status (0: no answer) and why. */
  writeErrorLog: { started: number; at: number; op: string; repeatSafe: boolean; status: number; detail: string }[];
  readLatencies: number[];
  writeLatencies: number[];
}

/** Kept per run for verify(): what each write said, acknowledged or not. */
interface Ledger {
  keysBefore: number;
  keysAcked: Set<number>;
  keysUnsure: number;
  positionAcked: Map<number, number>;
  positionsUnsure: Map<number, Set<number>>;
  queuedAcked: Set<number>;
}

export interface PlayerLoad {
  stop(): Promise<LoadReport>;
  /** Reads the state back through `base` and lists what contradicts the acknowledged writes (empty: none). */
  verify(base: string): Promise<string[]>;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function startPlayerLoad(setup: LoadSetup, clients = CLIENTS): Promise<PlayerLoad> {
  const { key, userId: u, episodes } = setup;
  const ledger: Ledger = { keysBefore: 0, keysAcked: new Set(), keysUnsure: 0, positionAcked: new Map(), positionsUnsure: new Map(), queuedAcked: new Set() };
  const report: LoadReport = {
    requests: 0,
    readFailures: [],
    writeFailures: [],
    writeErrors: 0,
    writeErrorsAt: [],
    writeErrorLog: [],
    readLatencies: [],
    writeLatencies: [],
  };
  const headers = { "Api-Key": key, "Content-Type": "application/json" };
  const get = (path: string) => (base: string) => fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(60_000) });
  const post = (path: string, body: object, base: string) =>
    fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
  const episodeOf = (client: number) => episodes[client % episodes.length];
  const positions = new Map<number, number>();

  const ops: Op[] = [
    { name: "verify_key", write: false, repeatSafe: true, send: get("/api/data/verify_key") },
    { name: "get_theme", write: false, repeatSafe: true, send: get(`/api/data/get_theme/${u}`) },
    { name: "get_queued_episodes", write: false, repeatSafe: true, send: get(`/api/data/get_queued_episodes?user_id=${u}`) },
    { name: "return_pods", write: false, repeatSafe: true, send: get(`/api/data/return_pods/${u}`) },
    { name: "get_stats", write: false, repeatSafe: true, send: get(`/api/data/get_stats?user_id=${u}`) },
    { name: "user_history", write: false, repeatSafe: true, send: get(`/api/data/user_history/${u}?limit=20`) },
    { name: "download_episode_list", write: false, repeatSafe: true, send: get(`/api/data/download_episode_list?user_id=${u}`) },
    { name: "get_podsync_settings", write: false, repeatSafe: true, send: get(`/api/data/get_podsync_settings/${u}`) },
    {
      name: "record_listen_duration",
      write: true,
      repeatSafe: true,
      send: (base, client) => {
        const episode_id = episodeOf(client);
        const listen_duration = (positions.get(episode_id) ?? 0) + 1;
        positions.set(episode_id, listen_duration);
        return post("/api/data/record_listen_duration", { user_id: u, episode_id, listen_duration }, base);
      },
    },
    {
      name: "queue_pod",
      write: true,
      repeatSafe: true,
      send: (base, client, n) => post("/api/data/queue_pod", { user_id: u, episode_id: episodes[(client + n) % episodes.length] }, base),
    },
  ];
  // The eleventh operation: an API key created every fourth turn (the list read back afterwards must stay
  // well under NATS's 1 MB message), else the client's last created key checked (it must work).
  const lastKey = new Map<number, string>();
  const createKey: Op = {
    name: "create_api_key",
    write: true,
    repeatSafe: false,
    send: (base) => post("/api/data/create_api_key", { user_id: u, rssonly: false }, base),
  };
  const checkKey: Op = {
    name: "verify_own_key",
    write: false,
    repeatSafe: true,
    send: (base, client) => fetch(`${base}/api/data/verify_key`, { headers: { "Api-Key": lastKey.get(client) ?? key }, signal: AbortSignal.timeout(60_000) }),
  };
  const OPS = ops.length + 1;
  const opOf = (c: number, n: number): Op => ((c + n) % OPS < ops.length ? ops[(c + n) % OPS] : Math.floor(n / OPS) % 4 === 0 ? createKey : checkKey);
  const keyIds = async (base: string): Promise<number[]> => {
    const res = await fetch(`${base}/api/data/get_api_info/${u}`, { headers });
    if (res.status !== 200) throw new Error(`get_api_info: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { api_info: { apikeyid: number }[] }).api_info.map((k) => k.apikeyid);
  };
  ledger.keysBefore = (await keyIds(setup.gateways()[0])).length;

  let running = true;
  let turn = 0;
  const client = async (c: number) => {
    for (let n = 0; running; n++) {
      const op = opOf(c, n);
      const live = setup.gateways();
      const started = Date.now();
      let status = 0;
      let detail = "";
      // As a load balancer in front of the gateways does: a request that could not connect goes to the next
      // gateway; one whose connection broke mid-way too, when it is safe to repeat.
      const first = turn++;
      for (let attempt = 0; attempt < live.length; attempt++) {
        try {
          const res = await op.send(live[(first + attempt) % live.length], c, n);
          status = res.status;
          const text = await res.text();
          detail = status === 200 ? "" : text;
          if (status === 200 && op === createKey) {
            const made = JSON.parse(text) as { api_id: number; api_key: string };
            ledger.keysAcked.add(made.api_id);
            lastKey.set(c, made.api_key);
          }
          break;
        } catch (err) {
          // fetch's TypeError carries the socket's error (its code) as its cause
          const e = err as Error & { cause?: { code?: string } };
          detail = e.cause?.code ?? e.message;
          if (detail !== "ECONNREFUSED" && !op.repeatSafe) break;
        }
      }
      report.requests++;
      (op.write ? report.writeLatencies : report.readLatencies).push(Date.now() - started);
      record(op, c, n, status, detail, started);
      await new Promise((r) => setTimeout(r, THINK_MS));
    }
  };

  /** The ledger of a write: acknowledged (200) or unsure (503: the node may have applied it before dying). */
  const record = (op: Op, c: number, n: number, status: number, detail: string, started: number) => {
    if (!op.write) {
      if (status !== 200) report.readFailures.push(`${op.name}: ${status} ${detail}`.slice(0, 300));
      return;
    }
    if (status !== 200 && status !== 503 && status !== 0) report.writeFailures.push(`${op.name}: ${status} ${detail}`.slice(0, 300));
    if (status !== 200) {
      report.writeErrors++;
      report.writeErrorsAt.push(Date.now());
      report.writeErrorLog.push({ started, at: Date.now(), op: op.name, repeatSafe: op.repeatSafe, status, detail: detail.slice(0, 200) });
    }
    const acked = status === 200;
    if (op.name === "create_api_key" && !acked) ledger.keysUnsure++;
    else if (op.name === "queue_pod" && acked) ledger.queuedAcked.add(episodes[(c + n) % episodes.length]);
    else if (op.name === "record_listen_duration") {
      const episode_id = episodeOf(c);
      const value = positions.get(episode_id)!;
      if (acked) ledger.positionAcked.set(episode_id, value);
      else ledger.positionsUnsure.set(episode_id, (ledger.positionsUnsure.get(episode_id) ?? new Set()).add(value));
    }
  };

  const all = Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return {
    stop: async () => ((running = false), await all, report),
    async verify(base: string) {
      const wrong: string[] = [];
      const read = async <T>(path: string) => {
        const res = await fetch(`${base}${path}`, { headers });
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as T;
      };
      const keys = new Set(await keyIds(base));
      for (const id of ledger.keysAcked) if (!keys.has(id)) wrong.push(`key ${id} acknowledged, not found`);
      const made = keys.size - ledger.keysBefore;
      if (made > ledger.keysAcked.size + ledger.keysUnsure)
        wrong.push(`${made} keys made by ${ledger.keysAcked.size} acknowledged and ${ledger.keysUnsure} failed creations`);
      const history: { episodeid: number; listenduration: number }[] = (
        await read<{ data: { episodeid: number; listenduration: number }[] }>(`/api/data/user_history/${u}?limit=1000`)
      ).data;
      const position = new Map(history.map((h) => [h.episodeid, h.listenduration]));
      for (const [episode, acked] of ledger.positionAcked) {
        const now = position.get(episode) ?? 0;
        if (now !== acked && !(now > acked && ledger.positionsUnsure.get(episode)?.has(now)))
          wrong.push(`episode ${episode}: position ${now}, last acknowledged ${acked}`);
      }
      const queued = new Set((await read<{ data: { episodeid: number }[] }>(`/api/data/get_queued_episodes?user_id=${u}`)).data.map((e) => e.episodeid));
      for (const episode of ledger.queuedAcked) if (!queued.has(episode)) wrong.push(`episode ${episode} queued, not in the queue`);
      return wrong;
    },
  };
}
