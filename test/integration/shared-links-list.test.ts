/**
 * A user's shared links as PinePods' web client manages them (setting_reqs.rs: get_user_shared_links,
 * extend_shared_link with share_code and days, delete_shared_link with share_code), over HTTP.
 */
import { expectErrorBody } from "../helpers/client";
import { Library, raw, startLibrary } from "../helpers/library";

const DAY_MS = 86_400_000;

describe("the user's shared links", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;
  const key = (who: string) => lib.users[who].key;
  const share = async (who: string, episode: string, body: object = {}) =>
    (await lib.post(`/api/data/share_episode/${lib.ids[episode]}`, who, body)).body.url_key as string;
  const links = async (who: string) => {
    const res = await lib.get(`/api/data/get_user_shared_links/${uid(who)}`, who);
    expect(res.status).toBe(200);
    return res.body.shared_links as any[];
  };
  const extend = (who: string, body: object) => raw(lib, "put", "/api/data/extend_shared_link", key(who)).send(body);

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("listed with episode, podcast and expiry; extended by days; deleted by share_code", async () => {
    const forever = await share("alice", "Tiny");
    const week = await share("alice", "Hour", { expires_in_days: 7 });
    await share("bob", "Half", { expires_in_days: 2 });
    const listed = await links("alice");
    expect(listed.map((l) => l.share_code)).toEqual([week, forever]); // soonest expiry first, never last
    expect(listed[1]).toEqual({
      share_code: forever,
      expiration_date: "never",
      expires_at: null,
      episode_id: lib.ids.Tiny,
      episode_title: "Tiny",
      podcast_name: "Shared Show",
    });
    const expiry = Date.parse(listed[0].expiration_date);
    expect(Math.abs(expiry - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);

    const extended = await extend("alice", { share_code: week, days: 3 });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.body.expires_at) - expiry).toBe(3 * DAY_MS);
    expect(Date.parse((await links("alice"))[0].expiration_date)).toBe(expiry + 3 * DAY_MS);
    expectErrorBody(await extend("alice", { share_code: forever, days: 3 }), 400);
    expectErrorBody(await extend("alice", { share_code: week, days: 0 }), 400);
    expectErrorBody(await extend("alice", { share_code: week, days: 366 }), 400);

    const del = await raw(lib, "delete", "/api/data/delete_shared_link", key("alice")).send({ share_code: forever });
    expect(del.status).toBe(200);
    expect((await links("alice")).map((l) => l.share_code)).toEqual([week]);
    expect((await lib.get(`/api/data/episode_by_url/${forever}`, "alice")).status).toBe(404);
  });

  test("authorization: no key 401, another user's links 403, the owner 200", async () => {
    const code = await share("alice", "Long", { expires_in_days: 5 });
    expectErrorBody(await raw(lib, "get", `/api/data/get_user_shared_links/${uid("alice")}`, null), 401);
    expectErrorBody(await raw(lib, "get", `/api/data/get_user_shared_links/${uid("alice")}`, key("bob")), 403);
    expectErrorBody(await raw(lib, "put", "/api/data/extend_shared_link", null).send({ share_code: code, days: 1 }), 401);
    expectErrorBody(await extend("bob", { share_code: code, days: 1 }), 403);
    expectErrorBody(await extend("bob", { share_code: "x".repeat(32), days: 1 }), 404);
    expectErrorBody(await raw(lib, "delete", "/api/data/delete_shared_link", key("bob")).send({ share_code: code }), 403);
    expect((await extend("alice", { share_code: code, days: 1 })).status).toBe(200);
    expect((await links("alice")).map((l) => l.share_code)).toContain(code);
  });
});
