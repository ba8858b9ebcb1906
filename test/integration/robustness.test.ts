/**
 * Every route of the table, hit with missing credentials and with malformed input as an admin: the
 * answer is always a JSON error or success below 500, never a crash (house rule 5, docs/architecture.md).
 */
import { routes } from "../../services/api.routes";
import { api, basic } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";

// The OIDC callback answers 500 on a failed token exchange by contract; it has its own tests.
const SKIP = new Set(["GET /api/auth/callback"]);
// The sign-in page of the Login Flow is read by a person in a browser: its own errors are HTML pages (the
// gateway's, such as 431 before any route is known, stay JSON).
const PAGES = new Set(["GET /index.php/login/v2/flow/{flow}", "POST /index.php/login/v2/flow/{flow}"]);

const BAD_VALUES: unknown[] = ["abc", -1, 99999999999, { $gt: "" }, [1, "x"], null, true, "", "x".repeat(5000)];
const FIELDS = [
  "user_id",
  "podcast_id",
  "episode_id",
  "api_id",
  "theme_id",
  "provider_id",
  "podcast_values",
  "feed_url",
  "rssonly",
  "seconds",
  "playback_speed",
  "new_theme",
  "timezone",
  "hour_pref",
  "date_format",
  "mfa_code",
  "email",
  "username",
  "hash_pw",
  "podcast_ids",
  "feed_cutoff_days",
  "limit",
  "offset",
  "since",
];

describe("no input makes the server answer 500", () => {
  let server: TestServer;
  let adminKey: string;
  beforeAll(async () => {
    server = await startServer();
    await api(server.url)
      .post("/api/data/create_first")
      .send({ username: "admin", password: "a long password", email: "admin@example.org", fullname: "Admin" });
    adminKey = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("admin", "a long password"))).body.retrieved_key;
  });
  afterAll(() => server.stop());

  const entries = Object.entries(routes).filter(([k]) => !SKIP.has(k));

  test.each(entries)("%s", async (route) => {
    const [method, template] = route.split(" ");
    const problems: string[] = [];
    for (const [i, bad] of BAD_VALUES.entries()) {
      const path = template.replace(/\{\w+\}/g, () => encodeURIComponent(["string", "number", "boolean"].includes(typeof bad) ? String(bad) : "abc"));
      const body: Record<string, unknown> = {};
      for (const f of FIELDS) body[f] = BAD_VALUES[(i + f.length) % BAD_VALUES.length];
      const query = Object.fromEntries(FIELDS.map((f) => [f, String(BAD_VALUES[(i + f.length + 1) % BAD_VALUES.length])]));
      for (const withKey of [false, true]) {
        let req = (api(server.url) as any)[method.toLowerCase()](path).query(query);
        if (withKey) req = req.set("Api-Key", adminKey);
        const res = method === "GET" || method === "HEAD" ? await req : await req.send(body);
        const type = String(res.headers["content-type"] ?? "");
        const typed = type.includes("json") || (PAGES.has(route) && type.includes("text/html"));
        if (res.status >= 500 || (!typed && res.status >= 400)) {
          problems.push(`${withKey ? "admin" : "anonymous"} #${i}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
