/** The read commands: find, getMore, killCursors, count, distinct and aggregate ($out as its last stage). */
import { Long } from "mongodb";
import { Aggregator } from "mingo";
import { type Ctx, type Handler, collName } from "./context";
import { CommandError, badValue } from "./errors";
import { prepareForInsert, queryOptions, runFind } from "./query";
import type { Doc } from "./types";
import { EMPTY_ARRAY, canon, deepClone, toNumber, valuesAtPath } from "./values";

function find(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "find");
  const filter: Doc = body.filter ?? {};
  const sort: Doc | undefined = body.sort && Object.keys(body.sort).length ? body.sort : undefined;
  store.record({ db, coll: name, op: "find", filter, ...(sort ? { sort } : {}) });
  const coll = store.coll(db, name);
  const limit = toNumber(body.limit, 0);
  const docs = runFind(coll?.all() ?? [], filter, {
    sort,
    skip: toNumber(body.skip, 0),
    limit,
    projection: body.projection,
    collation: body.collation,
    variables: body.let,
  });
  return store.cursorAnswer(`${db}.${name}`, docs, body.batchSize, body.singleBatch === true || limit < 0);
}

function getMore(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const id = toNumber(body.getMore, -1);
  const cur = store.cursor(id);
  if (!cur) throw new CommandError(43, "CursorNotFound", `cursor id ${id} not found`);
  const ns = `${db}.${body.collection}`;
  if (cur.ns !== ns) {
    throw new CommandError(13, "Unauthorized", `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cur.ns}`);
  }
  const nextBatch = store.takeBatch(cur, toNumber(body.batchSize, 0));
  let outId = id;
  if (cur.pos >= cur.docs.length) {
    store.killCursor(id);
    outId = 0;
  }
  return { cursor: { nextBatch, id: Long.fromNumber(outId), ns: cur.ns }, ok: 1 };
}

function killCursors(ctx: Ctx): Doc {
  const killed: Long[] = [];
  const missing: Long[] = [];
  for (const raw of (ctx.body.cursors ?? []) as unknown[]) {
    const id = toNumber(raw, -1);
    (ctx.store.killCursor(id) ? killed : missing).push(Long.fromNumber(id));
  }
  return { cursorsKilled: killed, cursorsNotFound: missing, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
}

function count(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "count");
  const filter: Doc = body.query ?? {};
  store.record({ db, coll: name, op: "count", filter });
  const coll = store.coll(db, name);
  const n = runFind(coll?.all() ?? [], filter, { skip: toNumber(body.skip, 0), limit: toNumber(body.limit, 0), collation: body.collation }).length;
  return { n, ok: 1 };
}

function distinct(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "distinct");
  if (typeof body.key !== "string") throw badValue("distinct key must be a string");
  const filter: Doc = body.query ?? {};
  store.record({ db, coll: name, op: "distinct", filter });
  const coll = store.coll(db, name);
  const seen = new Map<string, unknown>();
  for (const doc of runFind(coll?.all() ?? [], filter, { collation: body.collation })) {
    for (const v of valuesAtPath(doc, body.key)) if (v !== EMPTY_ARRAY && v !== undefined && !seen.has(canon(v))) seen.set(canon(v), v);
  }
  return { values: Array.from(seen.values()), ok: 1 };
}

function aggregate(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const target = body.aggregate;
  if (!Array.isArray(body.pipeline)) throw badValue("'pipeline' option must be specified as an array");
  if (body.explain) throw badValue("explain is not supported by the test double");
  let pipeline: Doc[] = body.pipeline;
  const name = typeof target === "string" ? target : "$cmd.aggregate";
  const first = pipeline[0];
  const sortStage = pipeline.find((s) => s && "$sort" in s);
  store.record({
    db,
    coll: name,
    op: "aggregate",
    filter: first && "$match" in first ? first.$match : {},
    ...(sortStage ? { sort: sortStage.$sort } : {}),
    pipeline,
  });
  const last = pipeline[pipeline.length - 1];
  if (pipeline.some((s) => s && "$merge" in s)) throw badValue("$merge is not supported by the test double");
  let out: { db: string; coll: string } | undefined;
  if (last && "$out" in last) {
    out = typeof last.$out === "string" ? { db, coll: last.$out } : { db: last.$out.db ?? db, coll: last.$out.coll };
    pipeline = pipeline.slice(0, -1);
  }
  const input = typeof target === "string" ? (store.coll(db, target)?.all() ?? []).map(deepClone) : [];
  const options: Doc = {
    ...queryOptions({ collation: body.collation, variables: body.let }),
    collectionResolver: (from: string) => (store.coll(db, from)?.all() ?? []).map(deepClone),
  };
  const result = new Aggregator(pipeline, options).run<Doc>(input);
  if (out) {
    const { coll } = store.ensureColl(out.db, out.coll);
    const previous = coll.all();
    coll.clear();
    try {
      for (const doc of result) coll.insert(prepareForInsert(deepClone(doc)));
    } catch (err) {
      coll.clear();
      for (const doc of previous) coll.insert(doc);
      throw err;
    }
    return store.cursorAnswer(`${db}.${name}`, [], body.cursor?.batchSize);
  }
  return store.cursorAnswer(`${db}.${name}`, result, body.cursor?.batchSize);
}

export const READ_COMMANDS: Record<string, Handler> = { find, getMore, killCursors, count, distinct, aggregate };
