/**
 * Lists a client reads whole stay bounded: API keys and app passwords (get_api_info) and custom themes
 * (get_custom_themes) are refused with 409 past MAX_USER_KEYS and MAX_CUSTOM_THEMES, until one is deleted.
 * Keys that come and go by themselves (login, RSS, sync sessions) keep their newest few instead.
 */
import { config } from "../../shared/config";
import { api, expectErrorBody } from "../helpers/client";
import { createUsers } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const THEME_FIELDS = [
  "background_color",
  "button_color",
  "container_button_color",
  "button_text_color",
  "text_color",
  "text_secondary_color",
  "border_color",
  "accent_color",
  "prog_bar_color",
  "error_color",
  "bonus_color",
  "secondary_background",
  "container_background",
  "standout_color",
  "hover_color",
  "link_color",
  "thumb_color",
  "unfilled_color",
  "check_box_color",
];

let server: TestServer;
let users: Record<string, { id: number; key: string }>;
const before = { maxUserKeys: config.maxUserKeys, maxCustomThemes: config.maxCustomThemes };
beforeAll(async () => {
  Object.assign(config, { maxUserKeys: 3, maxCustomThemes: 2 });
  server = await startServer();
  users = await createUsers(server.url, ["alice"]);
});
afterAll(async () => {
  Object.assign(config, before);
  await server.stop();
});

test("API keys and app passwords: the limit's next one is a 409, each kind counted on its own; a deletion makes room", async () => {
  const { id, key } = users.alice;
  const create = () => api(server.url).post("/api/data/create_api_key").set("Api-Key", key).send({ user_id: id, rssonly: false });
  const created: number[] = [];
  for (let i = 0; i < 3; i++) created.push((await create()).body.api_id);
  const refused = await create();
  expectErrorBody(refused, 409);
  expect(refused.body.message).toMatch(/3 API keys/);
  for (let i = 0; i < 3; i++)
    expect(
      (
        await api(server.url)
          .post("/api/data/create_app_password")
          .set("Api-Key", key)
          .send({ user_id: id, name: `app ${i}` })
      ).status,
    ).toBe(200);
  expectErrorBody(await api(server.url).post("/api/data/create_app_password").set("Api-Key", key).send({ user_id: id, name: "one more" }), 409);
  // The sign-ins' login keys are not among them.
  expect(
    (await api(server.url).get(`/api/data/get_api_info/${id}`).set("Api-Key", key)).body.api_info.filter((k: { kind: string }) => k.kind === "user"),
  ).toHaveLength(3);
  expect((await api(server.url).delete("/api/data/delete_api_key").set("Api-Key", key).send({ api_id: created[0] })).status).toBe(200);
  expect((await create()).status).toBe(200);
});

test("the Nextcloud login flow at the app password limit: its form again, saying why, with 409", async () => {
  // alice holds the most app passwords since the test above.
  const flow = (await api(server.url).post("/index.php/login/v2").type("form").send("")).body;
  const page = await api(flow.login).get("");
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
  const cookie = String(page.headers["set-cookie"][0]).split(";")[0];
  const res = await api(flow.login).post("").type("form").set("Cookie", cookie).send({ csrf, user: "alice", password: "a long password" });
  expect(res.status).toBe(409);
  expect(res.headers["content-type"]).toMatch(/^text\/html/);
  expect(res.text).toMatch(/3 app passwords, the most it may hold: delete one first \(in the web app&#39;s settings\)/);
});

test("custom themes: the limit's next one is a 409; a deletion makes room", async () => {
  const { id, key } = users.alice;
  const theme = (name: string) => ({ user_id: id, name, ...Object.fromEntries(THEME_FIELDS.map((f) => [f, "#abc"])) });
  const create = (name: string) => api(server.url).post("/api/data/user/custom_themes").set("Api-Key", key).send(theme(name));
  const first = await create("one");
  expect(first.status).toBe(200);
  expect((await create("two")).status).toBe(200);
  const refused = await create("three");
  expectErrorBody(refused, 409);
  expect(refused.body.message).toMatch(/2 custom themes/);
  expect((await api(server.url).get(`/api/data/user/custom_themes/${id}`).set("Api-Key", key)).body.themes.map((t: { name: string }) => t.name)).toEqual([
    "one",
    "two",
  ]);
  expect(
    (await api(server.url).delete("/api/data/user/custom_themes").set("Api-Key", key).send({ user_id: id, theme_id: first.body.theme.themeid })).status,
  ).toBe(200);
  expect((await create("three")).status).toBe(200);
});
