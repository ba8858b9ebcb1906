/** The write commands: insert, update, delete (each statement by statement) and findAndModify. */
import { type Ctx, type Handler, collName } from "./context";
import { CommandError, badValue, writeError } from "./errors";
import { applyUpdate, buildUpsert, checkUpdate, prepareForInsert, project, queryOptions, runFind } from "./query";
import type { Doc } from "./types";
import { canon, isOperatorDoc, toNumber } from "./values";

/** The collection a write command names and its statements: the array in `field` (`update requires an 'updates' array`). */
function writeTarget(ctx: Ctx, command: string, field: string): { name: string; statements: unknown[] } {
  const name = collName(ctx, command);
  const statements = ctx.body[field];
  if (!Array.isArray(statements)) throw badValue(`${command} requires ${/^[aeiou]/.test(field) ? "an" : "a"} '${field}' array`);
  return { name, statements };
}

/**
 * Runs `run` on each statement of a write command. A statement that throws becomes an entry of the returned
 * writeErrors; an ordered write stops at it, an unordered one goes on with the next.
 */
function eachStatement(statements: unknown[], ordered: boolean, run: (statement: any, index: number) => void): Doc[] {
  const writeErrors: Doc[] = [];
  for (let i = 0; i < statements.length; i++) {
    try {
      run(statements[i], i);
    } catch (err) {
      writeErrors.push(writeError(i, err));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function insert(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const { name, statements } = writeTarget(ctx, "insert", "documents");
  const { coll } = store.ensureColl(db, name);
  let n = 0;
  const writeErrors = eachStatement(statements, body.ordered !== false, (doc) => {
    coll.insert(prepareForInsert(doc));
    n++;
  });
  return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
}

function update(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const { name, statements } = writeTarget(ctx, "update", "updates");
  let n = 0;
  let nModified = 0;
  const upserted: Doc[] = [];
  const writeErrors = eachStatement(statements, body.ordered !== false, (raw, i) => {
    const st: Doc = raw ?? {};
    const q: Doc = st.q ?? {};
    store.record({ db, coll: name, op: "update", filter: q, ...(st.sort ? { sort: st.sort } : {}) });
    checkUpdate(st.u);
    const opts = queryOptions({ collation: st.collation, variables: st.c ?? body.let });
    if (st.multi && !Array.isArray(st.u) && !isOperatorDoc(st.u)) throw badValue("multi update is not supported for replacement-style update");
    const coll = store.coll(db, name);
    const matches = runFind(coll?.all() ?? [], q, { sort: st.sort, limit: st.multi ? 0 : 1, collation: st.collation, variables: opts.variables });
    if (matches.length && coll) {
      for (const doc of matches) {
        const next = applyUpdate(doc, st.u, q, st.arrayFilters, false, opts);
        const changed = canon(next) !== canon(doc);
        if (changed) coll.replace(doc, next);
        n++;
        if (changed) nModified++;
      }
    } else if (st.upsert) {
      const doc = buildUpsert(q, st.u, opts);
      store.ensureColl(db, name).coll.insert(doc);
      n++;
      upserted.push({ index: i, _id: doc._id });
    }
  });
  return { n, nModified, ...(upserted.length ? { upserted } : {}), ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
}

function deleteDocs(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const { name, statements } = writeTarget(ctx, "delete", "deletes");
  let n = 0;
  const writeErrors = eachStatement(statements, body.ordered !== false, (raw) => {
    const st: Doc = raw ?? {};
    const q: Doc = st.q ?? {};
    store.record({ db, coll: name, op: "delete", filter: q });
    const coll = store.coll(db, name);
    const limit = toNumber(st.limit, 0);
    for (const doc of runFind(coll?.all() ?? [], q, { limit: limit === 1 ? 1 : 0, collation: st.collation })) {
      coll?.remove(doc);
      n++;
    }
  });
  return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
}

function findAndModify(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "findAndModify");
  const q: Doc = body.query ?? {};
  const sort: Doc | undefined = body.sort && Object.keys(body.sort).length ? body.sort : undefined;
  store.record({ db, coll: name, op: "findAndModify", filter: q, ...(sort ? { sort } : {}) });
  const fields: Doc | undefined = body.fields ?? body.projection;
  const remove = body.remove === true;
  if (remove === (body.update !== undefined)) throw new CommandError(9, "FailedToParse", "Either an update or remove=true must be specified");
  if (remove && body.upsert) throw new CommandError(9, "FailedToParse", "Cannot specify both upsert=true and remove=true");
  if (!remove) checkUpdate(body.update);
  const opts = queryOptions({ collation: body.collation, variables: body.let });
  const coll = store.coll(db, name);
  const found: Doc | undefined = runFind(coll?.all() ?? [], q, { sort, limit: 1, collation: body.collation, variables: body.let })[0];
  if (remove) {
    if (found && coll) coll.remove(found);
    return { lastErrorObject: { n: found ? 1 : 0 }, value: found ? project(found, fields) : null, ok: 1 };
  }
  if (found && coll) {
    const next = applyUpdate(found, body.update, q, body.arrayFilters, false, opts);
    if (canon(next) !== canon(found)) coll.replace(found, next);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(body.new ? next : found, fields), ok: 1 };
  }
  if (body.upsert) {
    const doc = buildUpsert(q, body.update, opts);
    store.ensureColl(db, name).coll.insert(doc);
    return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: body.new ? project(doc, fields) : null, ok: 1 };
  }
  return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
}

export const WRITE_COMMANDS: Record<string, Handler> = {
  insert,
  update,
  delete: deleteDocs,
  findAndModify,
  findandmodify: findAndModify,
};
