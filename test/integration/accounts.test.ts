/**
 * Profile, settings, custom themes and user administration, black-box through the gateway: every setter's
 * limits (400 outside, visible through its getter inside), duplicates 409, another user's id 403.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { startLoopback } from "../helpers/loopback";
import { fixture } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("accounts: profile, settings and administration", () => {
  let server: TestServer;
  const http = () => api(server.url);
  let adminKey = "";
  let adminId = 0;

  async function login(username: string, password: string): Promise<string> {
    const res = await http().get("/api/data/get_key").set("Authorization", basic(username, password));
    expect(res.status).toBe(200);
    return res.body.retrieved_key;
  }

  /** A fresh account per area, so no test depends on another's changes. */
  async function newUser(name: string): Promise<{ id: number; key: string; password: string }> {
    const password = `${name} password`;
    const res = await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: name, username: name, email: `${name}@example.org`, hash_pw: password });
    expect(res.status).toBe(200);
    return { id: res.body.user_id, key: await login(name, password), password };
  }

  beforeAll(async () => {
    server = await startServer();
    const first = await http()
      .post("/api/data/create_first")
      .send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" });
    adminId = first.body.user_id;
    adminKey = await login("root", "root password");
  });
  afterAll(() => server?.stop());

  test("set_fullname, set_email and set_username: limits, lower-casing, 409 on duplicates, 403 for another user", async () => {
    const u = await newUser("pia");
    const other = await newUser("quinn");
    const info = () => http().get(`/api/data/my_user_info/${u.id}`).set("Api-Key", u.key);

    expectErrorBody(await http().put(`/api/data/set_fullname/${u.id}`).query({ new_name: "" }).set("Api-Key", u.key), 400);
    expectErrorBody(await http().put(`/api/data/set_fullname/${other.id}`).query({ new_name: "Hijack" }).set("Api-Key", u.key), 403);
    const named = await http().put(`/api/data/set_fullname/${u.id}`).query({ new_name: "Pia Patel" }).set("Api-Key", u.key);
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ detail: expect.any(String) });

    expectErrorBody(await http().put("/api/data/user/set_email").set("Api-Key", u.key).send({ user_id: u.id, new_email: "not-an-email" }), 400);
    expectErrorBody(await http().put("/api/data/user/set_email").set("Api-Key", u.key).send({ user_id: u.id, new_email: "QUINN@example.org" }), 409);
    expectErrorBody(await http().put("/api/data/user/set_email").set("Api-Key", u.key).send({ user_id: other.id, new_email: "x@example.org" }), 403);
    expect((await http().put("/api/data/user/set_email").set("Api-Key", u.key).send({ user_id: u.id, new_email: "Pia.P@Example.org" })).status).toBe(200);

    expectErrorBody(await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: u.id, new_username: "has space" }), 400);
    expectErrorBody(await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: u.id, new_username: "QUINN" }), 409);
    expectErrorBody(await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: other.id, new_username: "stolen" }), 403);
    expect((await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: u.id, new_username: "PiaP" })).status).toBe(200);
    // Setting one's own current values again is not a duplicate.
    expect((await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: u.id, new_username: "piap" })).status).toBe(200);

    expect((await info()).body).toEqual({
      userid: u.id,
      fullname: "Pia Patel",
      username: "piap",
      email: "pia.p@example.org",
      isadmin: 0,
      timezone: "UTC",
      timeformat: 24,
      dateformat: "YYYY-MM-DD",
      language: "en",
      startpage: "home",
      default_volume: 100,
    });
    expect((await http().get("/api/data/get_key").set("Authorization", basic("PIAP", u.password))).status).toBe(200);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("pia", u.password)), 401);
  });

  test("set_password: non-admins give the current password, admins reset anyone's", async () => {
    const u = await newUser("rosa");
    const other = await newUser("sam");
    expectErrorBody(await http().put(`/api/data/set_password/${u.id}`).set("Api-Key", u.key).send({ hash_pw: "new rosa password" }), 400);
    expectErrorBody(
      await http().put(`/api/data/set_password/${u.id}`).set("Api-Key", u.key).send({ hash_pw: "new rosa password", current_password: "wrong password" }),
      403,
    );
    expectErrorBody(await http().put(`/api/data/set_password/${u.id}`).set("Api-Key", u.key).send({ hash_pw: "short", old_password: u.password }), 400);
    expectErrorBody(
      await http().put(`/api/data/set_password/${other.id}`).set("Api-Key", u.key).send({ hash_pw: "new sam password", current_password: u.password }),
      403,
    );
    const changed = await http().put(`/api/data/set_password/${u.id}`).set("Api-Key", u.key).send({ hash_pw: "new rosa password", old_password: u.password });
    expect(changed.status).toBe(200);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("rosa", u.password)), 401);
    expect((await http().get("/api/data/get_key").set("Authorization", basic("rosa", "new rosa password"))).status).toBe(200);

    expect((await http().put(`/api/data/set_password/${other.id}`).set("Api-Key", adminKey).send({ hash_pw: "reset by admin" })).status).toBe(200);
    expect((await http().get("/api/data/get_key").set("Authorization", basic("sam", "reset by admin"))).status).toBe(200);
    // A client-side Argon2id hash is stored as is and verified against the clear password.
    const clientHash = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG";
    expect(
      (await http().put(`/api/data/set_password/${other.id}`).set("Api-Key", other.key).send({ hash_pw: clientHash, current_password: "reset by admin" }))
        .status,
    ).toBe(200);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("sam", "reset by admin")), 401);
  });

  test("theme: light, dark or auto, else 400; visible through get_theme", async () => {
    const u = await newUser("tara");
    const other = await newUser("uma");
    expect((await http().get(`/api/data/get_theme/${u.id}`).set("Api-Key", u.key)).body).toEqual({ theme: "auto" });
    for (const bad of ["neon", "", 3, null]) {
      expectErrorBody(await http().put("/api/data/user/set_theme").set("Api-Key", u.key).send({ user_id: u.id, new_theme: bad }), 400);
    }
    expectErrorBody(await http().put("/api/data/user/set_theme").set("Api-Key", u.key).send({ user_id: other.id, new_theme: "dark" }), 403);
    expectErrorBody(await http().get(`/api/data/get_theme/${other.id}`).set("Api-Key", u.key), 403);
    expectErrorBody(await http().get("/api/data/get_theme/999999").set("Api-Key", adminKey), 404);
    for (const theme of ["light", "dark", "auto", "dark"]) {
      const set = await http().put("/api/data/user/set_theme").set("Api-Key", u.key).send({ user_id: u.id, new_theme: theme });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ message: expect.any(String) });
      expect((await http().get(`/api/data/get_theme/${u.id}`).set("Api-Key", u.key)).body).toEqual({ theme });
    }
    expect((await http().get(`/api/data/get_theme/${other.id}`).set("Api-Key", other.key)).body).toEqual({ theme: "auto" });
  });

  test("time settings: first-login set-up, IANA timezones only, the three date formats, 12 or 24 hours", async () => {
    const u = await newUser("vera");
    const other = await newUser("walt");
    const timeInfo = async () => (await http().get("/api/data/get_time_info").query({ user_id: u.id }).set("Api-Key", u.key)).body;
    expect(await timeInfo()).toEqual({ timezone: "UTC", date_format: "YYYY-MM-DD", hour_pref: 24 });
    expect((await http().get(`/api/data/first_login_done/${u.id}`).set("Api-Key", u.key)).body).toEqual({ FirstLogin: true });

    const setup = { user_id: u.id, timezone: "Europe/Berlin", hour_pref: 12, date_format: "MDY" };
    expectErrorBody(
      await http()
        .post("/api/data/setup_time_info")
        .set("Api-Key", u.key)
        .send({ ...setup, timezone: "Mars/Olympus" }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/setup_time_info")
        .set("Api-Key", u.key)
        .send({ ...setup, hour_pref: 13 }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/setup_time_info")
        .set("Api-Key", u.key)
        .send({ ...setup, date_format: "YY.MM" }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/setup_time_info")
        .set("Api-Key", u.key)
        .send({ ...setup, user_id: other.id }),
      403,
    );
    expect((await http().get(`/api/data/first_login_done/${u.id}`).set("Api-Key", u.key)).body).toEqual({ FirstLogin: true });
    const done = await http().post("/api/data/setup_time_info").set("Api-Key", u.key).send(setup);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ success: true });
    expect((await http().get(`/api/data/first_login_done/${u.id}`).set("Api-Key", u.key)).body).toEqual({ FirstLogin: false });
    expect(await timeInfo()).toEqual({ timezone: "Europe/Berlin", date_format: "MM/DD/YYYY", hour_pref: 12 });

    for (const bad of ["+01:00", "GMT+1 ", "Nowhere/Land", "", "Europe/../etc"]) {
      expectErrorBody(await http().put("/api/data/update_timezone").set("Api-Key", u.key).send({ user_id: u.id, timezone: bad }), 400);
    }
    const tz = await http().put("/api/data/update_timezone").set("Api-Key", u.key).send({ user_id: u.id, timezone: "America/New_York" });
    expect(tz.body).toEqual({ success: true, message: expect.any(String) });
    expect((await timeInfo()).timezone).toBe("America/New_York");

    for (const bad of ["YYYY/MM/DD", "mm/dd/yyyy", "", 1]) {
      expectErrorBody(await http().put("/api/data/update_date_format").set("Api-Key", u.key).send({ user_id: u.id, date_format: bad }), 400);
    }
    for (const format of ["DD/MM/YYYY", "YYYY-MM-DD", "MM/DD/YYYY"]) {
      expect((await http().put("/api/data/update_date_format").set("Api-Key", u.key).send({ user_id: u.id, date_format: format })).body).toEqual({
        success: true,
        message: expect.any(String),
      });
      expect((await timeInfo()).date_format).toBe(format);
    }

    for (const bad of [0, 11, 13, 25, "twelve"]) {
      expectErrorBody(await http().put("/api/data/update_time_format").set("Api-Key", u.key).send({ user_id: u.id, hour_pref: bad }), 400);
    }
    expect((await http().put("/api/data/update_time_format").set("Api-Key", u.key).send({ user_id: u.id, hour_pref: 24 })).status).toBe(200);
    expect((await timeInfo()).hour_pref).toBe(24);
    expectErrorBody(await http().put("/api/data/update_time_format").set("Api-Key", u.key).send({ user_id: other.id, hour_pref: 12 }), 403);
    expectErrorBody(await http().get("/api/data/get_time_info").query({ user_id: other.id }).set("Api-Key", u.key), 403);
  });

  test("auto-complete seconds 0-300 and default playback speed 0.5-3.0", async () => {
    const u = await newUser("xena");
    const other = await newUser("yuri");
    const seconds = async () => (await http().get(`/api/data/get_auto_complete_seconds/${u.id}`).set("Api-Key", u.key)).body;
    expect(await seconds()).toEqual({ auto_complete_seconds: 0 });
    for (const bad of [-1, 301, 2.5, "many"]) {
      expectErrorBody(await http().put("/api/data/update_auto_complete_seconds").set("Api-Key", u.key).send({ user_id: u.id, seconds: bad }), 400);
    }
    for (const good of [300, 0, 45]) {
      expect((await http().put("/api/data/update_auto_complete_seconds").set("Api-Key", u.key).send({ user_id: u.id, seconds: good })).body).toEqual({
        success: true,
        message: expect.any(String),
      });
      expect(await seconds()).toEqual({ auto_complete_seconds: good });
    }
    expectErrorBody(await http().put("/api/data/update_auto_complete_seconds").set("Api-Key", u.key).send({ user_id: other.id, seconds: 10 }), 403);
    expectErrorBody(await http().get(`/api/data/get_auto_complete_seconds/${other.id}`).set("Api-Key", u.key), 403);

    const speed = async () => (await http().post("/api/data/get_playback_speed").set("Api-Key", u.key).send({ user_id: u.id })).body;
    expect(await speed()).toEqual({ playback_speed: 1 });
    for (const bad of [0.49, 3.01, 0, -1, "fast"]) {
      expectErrorBody(await http().post("/api/data/user/set_playback_speed").set("Api-Key", u.key).send({ user_id: u.id, playback_speed: bad }), 400);
    }
    for (const good of [0.5, 3.0, 1.25]) {
      expect((await http().post("/api/data/user/set_playback_speed").set("Api-Key", u.key).send({ user_id: u.id, playback_speed: good })).body).toEqual({
        detail: expect.any(String),
      });
      expect(await speed()).toEqual({ playback_speed: good });
    }
    expectErrorBody(await http().post("/api/data/user/set_playback_speed").set("Api-Key", u.key).send({ user_id: other.id, playback_speed: 2 }), 403);
    expectErrorBody(await http().post("/api/data/get_playback_speed").set("Api-Key", u.key).send({ user_id: other.id }), 403);

    // podcast_id (optional in the spec): the speed for one of the user's podcasts, 404 for one they do not have.
    const feeds = await startLoopback({ "/minimal.xml": { body: fixture("minimal_itunes_3items.xml") } });
    try {
      const added = await http()
        .post("/api/data/add_podcast")
        .set("Api-Key", u.key)
        .send({ podcast_values: { pod_feed_url: `${feeds.url}/minimal.xml`, user_id: u.id } });
      expect(added.status).toBe(200);
      const forPodcast = await http().post("/api/data/get_playback_speed").set("Api-Key", u.key).send({ user_id: u.id, podcast_id: added.body.podcast_id });
      expect(forPodcast.status).toBe(200);
      expect(forPodcast.body).toEqual({ playback_speed: 1.25 });
      expectErrorBody(
        await http().post("/api/data/get_playback_speed").set("Api-Key", other.key).send({ user_id: other.id, podcast_id: added.body.podcast_id }),
        404,
      );
      expectErrorBody(await http().post("/api/data/get_playback_speed").set("Api-Key", u.key).send({ user_id: u.id, podcast_id: "x" }), 400);
    } finally {
      await feeds.close();
    }
  });

  test("global podcast cover preference, languages", async () => {
    const u = await newUser("zoe");
    const other = await newUser("abel");
    const pref = async () => (await http().get("/api/data/user/get_podcast_cover_preference").set("Api-Key", u.key)).body;
    expect(await pref()).toEqual({ use_podcast_covers: false });
    expectErrorBody(
      await http().post("/api/data/user/set_global_podcast_cover_preference").set("Api-Key", u.key).send({ user_id: u.id, use_podcast_covers: "maybe" }),
      400,
    );
    expectErrorBody(
      await http().post("/api/data/user/set_global_podcast_cover_preference").set("Api-Key", u.key).send({ user_id: other.id, use_podcast_covers: true }),
      403,
    );
    expect(
      (await http().post("/api/data/user/set_global_podcast_cover_preference").set("Api-Key", u.key).send({ user_id: u.id, use_podcast_covers: true })).status,
    ).toBe(200);
    expect(await pref()).toEqual({ use_podcast_covers: true });
    expect((await http().get("/api/data/user/get_podcast_cover_preference").set("Api-Key", other.key)).body).toEqual({ use_podcast_covers: false });

    // With a podcast_id the preference is that podcast's own: 404 unless subscribed, then shown in its details.
    const feeds = await startLoopback({ "/minimal.xml": { body: fixture("minimal_itunes_3items.xml") } });
    try {
      const added = await http()
        .post("/api/data/add_podcast")
        .set("Api-Key", u.key)
        .send({ podcast_values: { pod_feed_url: `${feeds.url}/minimal.xml`, user_id: u.id } });
      const podcast_id = added.body.podcast_id;
      const details = async () => (await http().get("/api/data/get_podcast_details").query({ user_id: u.id, podcast_id }).set("Api-Key", u.key)).body.podcast;
      expect((await details()).use_podcast_covers).toBeNull();
      expectErrorBody(
        await http()
          .post("/api/data/user/set_global_podcast_cover_preference")
          .set("Api-Key", other.key)
          .send({ user_id: other.id, podcast_id, use_podcast_covers: false }),
        404,
      );
      expect(
        (
          await http()
            .post("/api/data/user/set_global_podcast_cover_preference")
            .set("Api-Key", u.key)
            .send({ user_id: u.id, podcast_id, use_podcast_covers: false })
        ).status,
      ).toBe(200);
      expect((await details()).use_podcast_covers).toBe(false);
      expect(await pref()).toEqual({ use_podcast_covers: true }); // the global one is unchanged
    } finally {
      await feeds.close();
    }

    const langs = await http().get("/api/data/get_available_languages");
    expect(langs.status).toBe(200);
    expect(langs.body.languages).toEqual(expect.arrayContaining([{ code: "en", name: "English" }]));
    const def = await http().get("/api/data/get_server_default_language");
    expect(def.body).toEqual({ default_language: "en" });
    expect(langs.body.languages.map((l: any) => l.code)).toContain(def.body.default_language);
  });

  test("custom themes: every colour field required, list own only, delete own only", async () => {
    const u = await newUser("bea");
    const other = await newUser("cole");
    const fields = [
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
    const theme: Record<string, any> = { user_id: u.id, name: "Night Owl" };
    fields.forEach((f, i) => (theme[f] = i % 2 ? "#1a2b3c" : "rgb(10, 20, 30)"));

    for (const f of fields) {
      const { [f]: _dropped, ...missing } = theme;
      expectErrorBody(await http().post("/api/data/user/custom_themes").set("Api-Key", u.key).send(missing), 400);
    }
    expectErrorBody(
      await http()
        .post("/api/data/user/custom_themes")
        .set("Api-Key", u.key)
        .send({ ...theme, accent_color: "url(javascript:x)" }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/user/custom_themes")
        .set("Api-Key", u.key)
        .send({ ...theme, name: "" }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/user/custom_themes")
        .set("Api-Key", u.key)
        .send({ ...theme, user_id: other.id }),
      403,
    );

    const made = await http().post("/api/data/user/custom_themes").set("Api-Key", u.key).send(theme);
    expect(made.status).toBe(200);
    // Shaped as the web client reads it: { theme: CustomTheme } with themeid.
    expect(made.body).toEqual({ message: expect.any(String), theme: expect.objectContaining({ themeid: expect.any(Number), name: theme.name }) });
    const theirs = await http()
      .post("/api/data/user/custom_themes")
      .set("Api-Key", other.key)
      .send({ ...theme, user_id: other.id, name: "Theirs" });

    const list = await http().get(`/api/data/user/custom_themes/${u.id}`).set("Api-Key", u.key);
    expect(list.status).toBe(200);
    expect(list.body.themes).toHaveLength(1);
    const { user_id: _u, ...expected } = theme;
    expect(list.body.themes[0]).toMatchObject({ ...expected, themeid: made.body.theme.themeid });
    expectErrorBody(await http().get(`/api/data/user/custom_themes/${other.id}`).set("Api-Key", u.key), 403);

    expectErrorBody(
      await http().delete("/api/data/user/custom_themes").set("Api-Key", u.key).send({ user_id: other.id, theme_id: theirs.body.theme.themeid }),
      403,
    );
    expectErrorBody(
      await http().delete("/api/data/user/custom_themes").set("Api-Key", u.key).send({ user_id: u.id, theme_id: theirs.body.theme.themeid }),
      404,
    );
    expect((await http().delete("/api/data/user/custom_themes").set("Api-Key", u.key).send({ user_id: u.id, theme_id: made.body.theme.themeid })).status).toBe(
      200,
    );
    expect((await http().get(`/api/data/user/custom_themes/${u.id}`).set("Api-Key", u.key)).body).toEqual({ themes: [] });
    expect((await http().get(`/api/data/user/custom_themes/${other.id}`).set("Api-Key", other.key)).body.themes).toHaveLength(1);
  });

  test("set_isadmin and final_admin: rights change at once on existing keys, the last admin stays", async () => {
    const u = await newUser("dana");
    const adminRoute = () => http().post("/api/data/enable_disable_guest").set("Api-Key", u.key);
    expectErrorBody(await adminRoute(), 403);
    expectErrorBody(await http().put("/api/data/user/set_isadmin").set("Api-Key", u.key).send({ user_id: u.id, isadmin: true }), 403);
    expectErrorBody(await http().get(`/api/data/user/final_admin/${adminId}`).set("Api-Key", u.key), 403);
    expect((await http().get(`/api/data/user/final_admin/${adminId}`).set("Api-Key", adminKey)).body).toEqual({ final_admin: true });
    expectErrorBody(await http().put("/api/data/user/set_isadmin").set("Api-Key", adminKey).send({ user_id: adminId, isadmin: false }), 409);
    expectErrorBody(await http().put("/api/data/user/set_isadmin").set("Api-Key", adminKey).send({ user_id: u.id, isadmin: "perhaps" }), 400);

    expect((await http().put("/api/data/user/set_isadmin").set("Api-Key", adminKey).send({ user_id: u.id, isadmin: true })).status).toBe(200);
    // The same key (its lookup was cached while it was a normal user) now carries admin rights.
    expect((await adminRoute()).status).toBe(200);
    expect((await http().get(`/api/data/my_user_info/${u.id}`).set("Api-Key", u.key)).body.isadmin).toBe(1);
    expect((await http().get(`/api/data/user/final_admin/${adminId}`).set("Api-Key", adminKey)).body).toEqual({ final_admin: false });

    expect((await http().put("/api/data/user/set_isadmin").set("Api-Key", u.key).send({ user_id: u.id, isadmin: false })).status).toBe(200);
    expectErrorBody(await adminRoute(), 403);
    expect((await http().get(`/api/data/user/final_admin/${adminId}`).set("Api-Key", adminKey)).body).toEqual({ final_admin: true });
  });

  test("delete user: admin only, the user's keys stop working, the last admin cannot be deleted", async () => {
    const u = await newUser("eli");
    const other = await newUser("fay");
    const extra = await http().post("/api/data/create_api_key").set("Api-Key", u.key).send({ user_id: u.id, rssonly: false });
    expect(extra.status).toBe(200);
    const theme: Record<string, any> = { user_id: u.id, name: "Mine" };
    for (const f of [
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
    ])
      theme[f] = "#abc";
    expect((await http().post("/api/data/user/custom_themes").set("Api-Key", u.key).send(theme)).status).toBe(200);
    expect((await http().get("/api/data/verify_key").set("Api-Key", extra.body.api_key)).status).toBe(200);

    expectErrorBody(await http().delete(`/api/data/user/delete/${other.id}`).set("Api-Key", u.key), 403);
    expectErrorBody(await http().delete(`/api/data/user/delete/${adminId}`).set("Api-Key", adminKey), 409);
    expectErrorBody(await http().delete("/api/data/user/delete/999999").set("Api-Key", adminKey), 404);
    const del = await http().delete(`/api/data/user/delete/${u.id}`).set("Api-Key", adminKey);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ status: "success", detail: expect.any(String) });
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", u.key), 401);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", extra.body.api_key), 401);
    expectErrorBody(await http().get(`/api/data/my_user_info/${u.id}`).set("Api-Key", adminKey), 404);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("eli", u.password)), 401);
    const keys = await http().get(`/api/data/get_api_info/${adminId}`).set("Api-Key", adminKey);
    expect(keys.body.api_info.some((k: any) => k.userid === u.id)).toBe(false);
    expect((await http().get(`/api/data/user/custom_themes/${u.id}`).set("Api-Key", adminKey)).body).toEqual({ themes: [] });
    expect((await http().get("/api/data/verify_key").set("Api-Key", other.key)).status).toBe(200);

    // With a second admin the first may go; the remaining one is then the final admin.
    expect((await http().put("/api/data/user/set_isadmin").set("Api-Key", adminKey).send({ user_id: other.id, isadmin: true })).status).toBe(200);
    expect((await http().get(`/api/data/user/final_admin/${other.id}`).set("Api-Key", other.key)).body).toEqual({ final_admin: false });
    expect((await http().delete(`/api/data/user/delete/${adminId}`).set("Api-Key", other.key)).status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", adminKey), 401);
    expect((await http().get(`/api/data/user/final_admin/${other.id}`).set("Api-Key", other.key)).body).toEqual({ final_admin: true });
    expectErrorBody(await http().delete(`/api/data/user/delete/${other.id}`).set("Api-Key", other.key), 409);
  });
});

/**
 * MongoDB's updateMany counts modified documents (moleculer-db-adapter-mongo returns modifiedCount), NeDB
 * counts matched ones. With the users store answering the MongoDB way, saving a value the user already
 * has must still succeed, and only an unknown user is a 404.
 */
describe("accounts: setters on MongoDB's update counts", () => {
  let server: TestServer;
  const http = () => api(server.url);

  beforeAll(async () => {
    server = await startServer();
    const adapter = (server.broker.getLocalService("users") as any).adapter;
    const matched = adapter.updateMany.bind(adapter);
    adapter.updateMany = async (query: object, update: { $set?: Record<string, unknown> }) => {
      const before: any[] = await adapter.find({ query });
      await matched(query, update);
      if (!update.$set) return before.length;
      const set = update.$set;
      return before.filter((doc) => Object.keys(set).some((k) => JSON.stringify(doc[k]) !== JSON.stringify(set[k]))).length;
    };
  });
  afterAll(() => server?.stop());

  test("setting a value again answers 200, an unknown user 404", async () => {
    await http().post("/api/data/create_first").send({ username: "mongo", password: "mongo password", email: "m@example.org", fullname: "M" });
    const key = (await http().get("/api/data/get_key").set("Authorization", basic("mongo", "mongo password"))).body.retrieved_key;
    for (const theme of ["dark", "dark"]) {
      expect((await http().put("/api/data/user/set_theme").set("Api-Key", key).send({ user_id: 1, new_theme: theme })).status).toBe(200);
    }
    expect((await http().put("/api/data/user/set_username").set("Api-Key", key).send({ user_id: 1, new_username: "mongo" })).status).toBe(200);
    expect((await http().put("/api/data/update_timezone").set("Api-Key", key).send({ user_id: 1, timezone: "UTC" })).status).toBe(200);
    expectErrorBody(await http().put("/api/data/user/set_theme").set("Api-Key", key).send({ user_id: 999, new_theme: "dark" }), 404);
  });
});
