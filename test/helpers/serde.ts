/**
 * PinePods' web client's reads (web/src/requests/*.rs, Rust with serde) as a checker: its structs, and what serde_json
 * would report reading an answer into one. A field not an Option must be there, with its exact type (an i32 refuses
 * 1.5, a string, a bool, null); an Option may be null or missing; two names of one field (#[serde(alias)]) in one
 * answer are serde's "duplicate field" error. Used by test/integration/web-client.test.ts and client-names.test.ts.
 */
/**
 * A serde type: i32, i64, u16, usize, f32, f64, bool, String, Value (any JSON), Unit (null only), BoolOrInt and
 * StartTime (the client's custom deserializers), Option<T>, Vec<T>, Map<T> (HashMap<String, T>), or a struct below.
 */
export type Ty = string;
/**
 * A struct as the client declares it, by field: "name" or "name|alias|alias" (#[serde(alias)]); "name=" has
 * #[serde(default)]; "name!" has deserialize_with and no default, so it must be there even as an Option.
 * "#default" is #[serde(default)] on the struct (every field may be missing).
 */
export type Struct = Record<string, Ty | true>;

const int = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const SCALARS: Record<string, (v: unknown) => boolean> = {
  i32: int(-(2 ** 31), 2 ** 31 - 1),
  i64: int(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  u16: int(0, 65535),
  usize: int(0, Number.MAX_SAFE_INTEGER),
  f32: (v) => typeof v === "number",
  f64: (v) => typeof v === "number",
  bool: (v) => typeof v === "boolean",
  String: (v) => typeof v === "string",
  Value: () => true,
  Unit: (v) => v === null,
  BoolOrInt: (v) => typeof v === "boolean" || Number.isInteger(v),
  StartTime: (v) => v === null || typeof v === "number",
};

/** The web client's structs, as web/src/requests/*.rs declares them (only what serde reads). */
export const WEB_STRUCTS: Record<string, Struct> = {
  // episode.rs: every list and episode answer.
  Episode: {
    "#default": true,
    podcastid: "i32",
    "podcastname|feedTitle": "String",
    "episodetitle|Episodetitle|title": "String",
    "artworkurl|feedImage": "String",
    "author|feedAuthor": "String",
    categories: "Option<Map<String>>",
    "episodedescription|Episodedescription|description": "String",
    episodecount: "Option<i32>",
    "feedurl|feedUrl": "String",
    "websiteurl|link": "String",
    explicit: "i32",
    userid: "i32",
    "episodeid|Episodeid": "i32",
    "episodeurl|Episodeurl|enclosure_url|enclosureUrl": "String",
    "episodeartwork|Episodeartwork|artwork|image": "String",
    "episodepubdate|Episodepubdate|pub_date": "String",
    "episodeduration|Episodeduration|duration": "i32",
    "listenduration|Listenduration": "Option<i32>",
    "completed|Completed": "bool",
    "saved|is_saved": "bool",
    "queued|is_queued": "bool",
    "downloaded|is_downloaded": "bool",
    is_youtube: "bool",
    is_video: "bool",
    guid: "String",
    queueposition: "Option<i32>",
    downloadedlocation: "Option<String>",
    listendate: "Option<String>",
    savedate: "Option<String>",
  },
  EpisodeAnswer: { episode: "Episode" },
  SearchPage: { data: "Vec<Episode>", total: "i64" },
  PodcastFeedResult: { episodes: "Vec<Value>", total: "i64" },
  // pod_req.rs Podcast (add_custom_podcast's data)
  Podcast: {
    podcastid: "i32",
    podcastname: "String",
    artworkurl: "Option<String>",
    description: "Option<String>",
    episodecount: "Option<i32>",
    websiteurl: "Option<String>",
    feedurl: "String",
    author: "Option<String>",
    categories: "Option<Map<String>>",
    "explicit!": "BoolOrInt",
    "podcastindexid=": "i32",
    "is_favorite=": "bool",
    "is_video=": "bool",
  },
  AddCustomPodcastResponse: { data: "Podcast" },
  // login_requests.rs
  OIDCProvider: {
    provider_id: "i32",
    provider_name: "String",
    client_id: "String",
    authorization_url: "String",
    scope: "String",
    button_color: "String",
    button_text: "String",
    button_text_color: "String",
    icon_svg: "Option<String>",
  },
  PublicOIDCProvidersResponse: { providers: "Vec<OIDCProvider>", disable_standard_login: "bool" },
  CheckMfaEnabledResponse: { mfa_enabled: "bool" },
  VerifyMFAResponse: { verified: "bool" },
  // setting_reqs.rs
  SettingsUser: { userid: "i32", fullname: "String", username: "String", email: "String", isadmin: "i32" },
  RestoreStatusResponse: { restore_in_progress: "bool" },
  SaveMFASecretResponse: { status: "String" },
  GenerateMFAResponse: { secret: "String", qr_code_svg: "String" },
  VerifyTempMFAResponse: { verified: "bool" },
  DeleteMFAResponse: { deleted: "bool" },
  RemoveSyncResponse: { success: "bool", message: "String" },
  AddUserResponse: { detail: "String", user_id: "Option<i32>" },
  CreateAPIKeyResponse: { api_key: "String" },
  DeleteAPIKeyResponse: { detail: "String" },
  APIInfo: { apikeyid: "i32", userid: "i32", username: "String", lastfourdigits: "String", created: "String" },
  APIInfoResponse: { api_info: "Vec<APIInfo>" },
  SuccessResponse: { success: "bool" },
  DetailResponse: { detail: "String" },
  DeleteUserResponse: { status: "String" },
  FinalAdminResponse: { final_admin: "bool" },
  AdminCheckResponse: { is_admin: "bool" },
  GetRssKeyResponse: { rss_key: "String" },
  ServerDefaultLanguageResponse: { default_language: "String" },
  ImportProgressResponse: { current: "i32", total: "i32", current_podcast: "String" },
  UnmatchedPodcast: {
    podcast_id: "i32",
    podcast_name: "String",
    artwork_url: "Option<String>",
    author: "Option<String>",
    description: "Option<String>",
    feed_url: "String",
  },
  PodcastsOfUnmatched: { podcasts: "Vec<UnmatchedPodcast>" },
  GetPodcastCoverPreferenceResponse: { use_podcast_covers: "bool" },
  NotificationSettings: {
    platform: "String",
    enabled: "bool",
    ntfy_topic: "Option<String>",
    ntfy_server_url: "Option<String>",
    ntfy_username: "Option<String>",
    ntfy_password: "Option<String>",
    ntfy_access_token: "Option<String>",
    gotify_url: "Option<String>",
    gotify_token: "Option<String>",
    http_url: "Option<String>",
    http_token: "Option<String>",
    http_method: "Option<String>",
  },
  NotificationSettingsResponse: { settings: "Vec<NotificationSettings>" },
  CustomTheme: Object.fromEntries([
    ["themeid", "i32"],
    ["name", "String"],
    ...[
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
    ].map((c) => [c, "String"]),
  ]),
  CreateCustomThemeResponse: { theme: "CustomTheme" },
  GetCustomThemesResponse: { themes: "Vec<CustomTheme>" },
  LocalDirEntry: { name: "String", path: "String", audio_count: "usize" },
  LocalDirListing: { current_path: "String", directories: "Vec<LocalDirEntry>" },
  NextcloudAuthResponse: {},
  GpodderCheckResponse: { status: "String", message: "String" },
  NextcloudCheckResponse: { data: "bool" },
  GpodderData: { gpodderurl: "String", gpoddertoken: "String" },
  NextcloudGetResponse: { data: "GpodderData" },
  GpodderApiStatusResponse: {
    sync_type: "String",
    gpodder_enabled: "bool",
    external_enabled: "bool",
    external_url: "Option<String>",
    api_url: "Option<String>",
  },
  GpodderDevice: {
    id: "String",
    name: "String",
    type: "String",
    caption: "Option<String>",
    last_sync: "Option<String>",
    is_active: "bool",
    is_remote: "Option<bool>",
    is_default: "Option<bool>",
  },
  "ApiResponse<()>": { success: "bool", message: "String", data: "Option<Unit>" },
  "ApiResponse<Value>": { success: "bool", message: "String", data: "Option<Value>" },
  ServerDevice: { id: "String", caption: "String", device_type: "String", subscriptions: "i32" },
  ServerSubscription: { url: "String", title: "Option<String>", description: "Option<String>" },
  ServerEpisodeAction: { podcast: "String", episode: "String", action: "String", timestamp: "String", position: "Option<i32>", device: "Option<String>" },
  EndpointTest: { endpoint: "String", status: "String", response_time_ms: "Option<i64>", error: "Option<String>" },
  GpodderStatistics: {
    server_url: "String",
    sync_type: "String",
    sync_enabled: "bool",
    server_devices: "Vec<ServerDevice>",
    total_devices: "i32",
    server_subscriptions: "Vec<ServerSubscription>",
    total_subscriptions: "i32",
    recent_episode_actions: "Vec<ServerEpisodeAction>",
    total_episode_actions: "i32",
    connection_status: "String",
    last_sync_timestamp: "Option<String>",
    api_endpoints_tested: "Vec<EndpointTest>",
  },
  // pod_req.rs
  ClearPlaybackSpeedResponse: { message: "String" },
  CheckYouTubeChannelResponse: { exists: "bool" },
  ShareLinkResponse: { url_key: "String" },
  RecordListenDurationResponse: { detail: "String" },
  Chapter: { "startTime!": "StartTime", title: "String", url: "Option<String>", img: "Option<String>" },
  Transcript: { url: "String", mime_type: "String", language: "Option<String>", rel: "Option<String>" },
  Person: {
    name: "String",
    role: "Option<String>",
    group: "Option<String>",
    img: "Option<String>",
    href: "Option<String>",
    id: "Option<i32>",
    description: "Option<String>",
  },
  Podcasting2Data: { chapters: "Vec<Chapter>", transcripts: "Vec<Transcript>", people: "Vec<Person>" },
  ValueRecipient: { name: "String", type: "String", address: "String", split: "String" },
  Value2: { type: "String", method: "String", suggested: "Option<String>", recipients: "Vec<ValueRecipient>" },
  Podcasting2PodData: { people: "Vec<Person>", podroll: "Vec<PodrollItem>", funding: "Vec<Funding>", value: "Vec<Value2>" },
  PodrollItem: { feed_guid: "String" },
  Funding: { url: "String", description: "String" },
  PlaylistEpisode: { title: "String", artwork: "String" },
  Playlist: {
    playlist_id: "i32",
    user_id: "i32",
    name: "String",
    description: "Option<String>",
    is_system_playlist: "bool",
    podcast_ids: "Option<Vec<i32>>",
    include_unplayed: "bool",
    include_partially_played: "bool",
    include_played: "bool",
    min_duration: "Option<i32>",
    max_duration: "Option<i32>",
    sort_order: "String",
    group_by_podcast: "bool",
    max_episodes: "Option<i32>",
    last_updated: "String",
    created: "String",
    episode_count: "Option<i32>",
    preview_episodes: "Vec<PlaylistEpisode>",
    icon_name: "Option<String>",
  },
  PlaylistResponse: { playlists: "Vec<Playlist>" },
  PlaylistInfo: {
    name: "String",
    description: "Option<String>",
    episode_count: "Option<i32>",
    icon_name: "Option<String>",
    is_system_playlist: "Option<bool>",
    podcast_ids: "Option<Vec<i32>>",
    include_unplayed: "Option<bool>",
    include_partially_played: "Option<bool>",
    include_played: "Option<bool>",
    min_duration: "Option<i32>",
    max_duration: "Option<i32>",
    sort_order: "Option<String>",
    group_by_podcast: "Option<bool>",
    max_episodes: "Option<i32>",
    play_progress_min: "Option<f32>",
    play_progress_max: "Option<f32>",
    time_filter_hours: "Option<i32>",
  },
  PlaylistFeedPage: { episodes: "Vec<Episode>", playlist_info: "PlaylistInfo", total: "i64" },
  // stat_reqs.rs
  TopPodcastStat: { podcastid: "i32", podcastname: "String", artworkurl: "String", total_seconds: "i64" },
  CategoryStat: { name: "String", total_seconds: "i64" },
  LongestEpisodeStat: { episodeid: "i32", episodetitle: "String", episodeduration: "i32", podcastname: "String" },
  ExtendedUserStats: {
    top_podcasts: "Vec<TopPodcastStat>",
    favorite_categories: "Vec<CategoryStat>",
    completion_rate: "i32",
    longest_episode: "Option<LongestEpisodeStat>",
    listening_badge: "String",
    total_downloaded_bytes: "i64",
    total_downloaded_formatted: "String",
    current_streak: "i32",
    listening_by_dow: "Vec<i64>",
  },
  // The per-podcast and per-episode setters (pod_req.rs SkipTimesResponse, AutoPlayNextResponse, MarkEpisodeCompletedResponse, UpdateEpisodeDurationResponse).
  DetailOnly: { detail: "String" },
  // The calls of test/integration/client-names.test.ts: stat_reqs.rs UserStats; pod_req.rs home, podcast details, video channels; setting_reqs.rs the Nextcloud login.
  UserStats: {
    UserCreated: "String",
    PodcastsPlayed: "i32",
    TimeListened: "i32",
    PodcastsAdded: "i32",
    EpisodesSaved: "i32",
    EpisodesDownloaded: "i32",
    GpodderUrl: "String",
    Pod_Sync_Type: "String",
  },
  HomePodcast: {
    podcastid: "i32",
    podcastname: "String",
    podcastindexid: "Option<i32>",
    artworkurl: "Option<String>",
    author: "Option<String>",
    categories: "Option<Map<String>>",
    description: "Option<String>",
    episodecount: "Option<i32>",
    feedurl: "Option<String>",
    websiteurl: "Option<String>",
    explicit: "Option<bool>",
    is_youtube: "bool",
    play_count: "i32",
    total_listen_time: "Option<i32>",
  },
  WeeklyStats: { seconds_listened: "i64", episodes_completed: "i32" },
  HomeOverview: {
    recent_episodes: "Vec<Episode>",
    in_progress_episodes: "Vec<Episode>",
    top_podcasts: "Vec<HomePodcast>",
    saved_count: "i32",
    downloaded_count: "i32",
    queue_count: "i32",
    "queue_preview=": "Vec<Episode>",
    "weekly_stats=": "WeeklyStats",
  },
  PodcastDetails: {
    podcastid: "i32",
    podcastname: "String",
    artworkurl: "String",
    author: "String",
    categories: "Map<String>",
    description: "String",
    episodecount: "i32",
    feedurl: "String",
    websiteurl: "String",
    explicit: "bool",
    userid: "i32",
    "podcastindexid=": "i32",
    isyoutubechannel: "bool",
  },
  PodcastDetailsResponse: { details: "PodcastDetails" },
  // pages/podcast_layout.rs: get_podcast_details_dynamic's answer
  ClickedFeedURL: {
    podcastid: "i32",
    podcastname: "String",
    feedurl: "String",
    description: "String",
    author: "String",
    artworkurl: "String",
    explicit: "bool",
    episodecount: "i32",
    categories: "Option<Map<String>>",
    websiteurl: "String",
    podcastindexid: "i32",
    is_youtube: "Option<bool>",
  },
  YouTubeSubscribeResponse: { success: "bool", podcast_id: "i32", message: "String" },
  YoutubeChannelResponse: { success: "bool" },
  PodcastEpisodesResponse: { episodes: "Vec<Episode>", "total=": "i64" },
  Poll: { token: "String", endpoint: "String" },
  NextcloudInitiateResponse: { poll: "Poll", login: "String" },
};

/**
 * What serde_json would report reading `value` as `ty` (empty: the client reads it). structs: the client's (nested
 * types not there come from WEB_STRUCTS); names: how a field name of the struct is spelled in the answer; at: where.
 */
export function serdeErrors(value: unknown, ty: Ty, opts: { structs?: Record<string, Struct>; names?: (name: string) => string; at?: string } = {}): string[] {
  const { structs = WEB_STRUCTS, names = (n: string) => n, at = "answer" } = opts;
  const inner = (v: unknown, t: Ty, where: string) => serdeErrors(v, t, { structs, names, at: where });
  const generic = /^(Option|Vec|Map)<(.+)>$/.exec(ty);
  if (generic) {
    const [, kind, of] = generic;
    if (kind === "Option") return value === null || value === undefined ? [] : inner(value, of, at);
    if (kind === "Vec")
      return Array.isArray(value) ? value.flatMap((v, i) => inner(v, of, `${at}[${i}]`)) : [`${at}: ${JSON.stringify(value)} is not a sequence`];
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not a map`];
    return Object.entries(value).flatMap(([k, v]) => inner(v, of, `${at}.${k}`));
  }
  if (SCALARS[ty]) return SCALARS[ty](value) ? [] : [`${at}: invalid type ${JSON.stringify(value)}, expected ${ty}`];
  const def = structs[ty] ?? WEB_STRUCTS[ty];
  if (!def) throw new Error(`no struct ${ty}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not a struct ${ty}`];
  const obj = value as Record<string, unknown>;
  return Object.entries(def).flatMap(([key, fieldTy]) => {
    if (key === "#default") return [];
    const [name, ...aliases] = key.replace(/[=!]$/, "").split("|");
    const present = [name, ...aliases].map(names).filter((n) => Object.prototype.hasOwnProperty.call(obj, n));
    if (present.length > 1) return [`${at}: duplicate field \`${name}\` (${present.join(", ")})`];
    if (!present.length) {
      const mayMiss = def["#default"] || key.endsWith("=") || (!key.endsWith("!") && String(fieldTy).startsWith("Option<"));
      return mayMiss ? [] : [`${at}: missing field \`${names(name)}\``];
    }
    return inner(obj[present[0]], fieldTy as Ty, `${at}.${present[0]}`);
  });
}
