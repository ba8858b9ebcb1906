/**
 * A small client of this server written only against the types generated from docs/openapi.json
 * (api.d.ts, `npm run openapi`) with openapi-fetch: create the first admin, log in, subscribe, queue an
 * episode and read the queue, record a listen and read the history, create a playlist and list them.
 * test/integration/client-sdk.test.ts compiles it with tsc (strict, noEmit) and runs it against a server.
 */
import createClient from "openapi-fetch";
import type { paths } from "../../web/src/api-schema";

export interface ClientRun {
  user_id: number;
  podcast_id: number;
  queued_titles: string[];
  history_titles: string[];
  playlist_id: number;
  playlist_names: string[];
}

/** An answer's data, or an error naming the operation and its status. */
function ok<T>(what: string, res: { data?: T; error?: unknown; response: Response }): T {
  if (res.data === undefined) throw new Error(`${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data;
}

export async function runClient(baseUrl: string, feedUrl: string): Promise<ClientRun> {
  const anonymous = createClient<paths>({ baseUrl });
  const username = "sdkadmin";
  const password = "a long sdk password";
  ok("create_first", await anonymous.POST("/api/data/create_first", { body: { username, password, email: "sdk@example.org", fullname: "SDK Admin" } }));
  const basic = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  const login = ok("get_key", await anonymous.GET("/api/data/get_key", { headers: { Authorization: basic } }));
  if (login.retrieved_key === null) throw new Error(`get_key: ${login.status}`);
  const user_id = login.user_id;

  const api = createClient<paths>({ baseUrl, headers: { "Api-Key": login.retrieved_key } });
  const added = ok("add_podcast", await api.POST("/api/data/add_podcast", { body: { podcast_values: { pod_feed_url: feedUrl, user_id } } }));
  const { episodes } = ok("podcast_episodes", await api.GET("/api/data/podcast_episodes", { params: { query: { user_id, podcast_id: added.podcast_id } } }));
  const [first, second] = episodes;

  ok("queue_pod", await api.POST("/api/data/queue_pod", { body: { user_id, episode_id: first.episodeid } }));
  const queue = ok("get_queued_episodes", await api.GET("/api/data/get_queued_episodes", { params: { query: { user_id } } }));

  ok(
    "record_podcast_history",
    await api.POST("/api/data/record_podcast_history", { body: { user_id, episode_id: second.episodeid, episode_pos: 12.5, is_vidsite: false } }),
  );
  const history = ok("user_history", await api.GET("/api/data/user_history/{user_id}", { params: { path: { user_id } } }));

  const playlist = ok(
    "create_playlist",
    await api.POST("/api/data/create_playlist", {
      body: {
        user_id,
        name: "From the SDK",
        include_unplayed: true,
        include_partially_played: true,
        include_played: false,
        sort_order: "date_desc",
        group_by_podcast: false,
        icon_name: "ph-playlist",
        podcast_ids: [added.podcast_id],
      },
    }),
  );
  const lists = ok("get_playlists", await api.GET("/api/data/get_playlists", { params: { query: { user_id } } }));

  return {
    user_id,
    podcast_id: added.podcast_id,
    queued_titles: queue.data.map((e) => e.episodetitle),
    history_titles: history.data.map((h) => h.episodename),
    playlist_id: playlist.playlist_id,
    playlist_names: lists.playlists.map((p) => p.name),
  };
}
