/**
 * THE route table: every documented "METHOD /path" -> the action it calls and its auth level
 * (none | optional | basic | key | admin | rss | sync; see shared/types.ts), and how its body is read
 * when not by its content type (body: json | text). Paths are exactly those of
 * docs/spec/podcast-server-api.md and docs/spec/ROUTES.md; {name} is a path parameter.
 */
import { neutralName } from "../shared/client-names";
import type { RouteDef } from "../shared/types";

export const routes: Record<string, RouteDef> = {
  // Health, setup and login
  "GET /api/health": { action: "api.health", auth: "none" },
  "GET /api/service_check": { action: "api.service_check", auth: "none" },
  // Not in the spec: PinePods' web and mobile clients check the server (before their sign-in) under this name
  "GET /api/pinepods_check": {
    action: "api.service_check",
    auth: "none",
    summary: "The instance check under PinePods' clients' name: service_check's answer, whose pinepods_instance they read",
  },
  "GET /api/data/self_service_status": { action: "users.self_service_status", auth: "none" },
  "POST /api/data/create_first": { action: "users.create_first", auth: "none" },
  "GET /api/data/get_key": { action: "auth.get_key", auth: "basic" },
  "GET /api/data/verify_key": { action: "auth.verify_key", auth: "key" },
  "GET /api/data/get_user": { action: "auth.get_user", auth: "key" },
  "GET /api/data/config": { action: "api.config", auth: "key" },

  // Accounts
  "GET /api/data/user_details_id/{user_id}": { action: "users.user_details_id", auth: "key" },
  "GET /api/data/my_user_info/{user_id}": { action: "users.my_user_info", auth: "key" },
  "GET /api/data/first_login_done/{user_id}": { action: "users.first_login_done", auth: "key" },
  "GET /api/data/user_admin_check/{user_id}": { action: "users.user_admin_check", auth: "key" },
  "POST /api/data/add_login_user": { action: "users.add_login_user", auth: "optional" },
  "POST /api/data/add_user": { action: "users.add_user", auth: "admin" },

  // Server settings
  "POST /api/data/enable_disable_self_service": { action: "users.enable_disable_self_service", auth: "admin" },
  "POST /api/data/enable_disable_guest": { action: "users.enable_disable_guest", auth: "admin" },
  "GET /api/data/admin_self_service_status": { action: "users.admin_self_service_status", auth: "key" },

  // API keys
  "POST /api/data/create_api_key": { action: "auth.create_api_key", auth: "key" },
  "DELETE /api/data/delete_api_key": { action: "auth.delete_api_key", auth: "key" },
  // Not in the spec: the web app's sign-out revokes the key its sign-in issued (the key of this request)
  "POST /api/data/sign_out": { action: "auth.sign_out", auth: "key", summary: "Sign out: the key of this request is revoked" },
  "GET /api/data/get_api_info/{user_id}": { action: "auth.get_api_info", auth: "key" },
  // Not in the spec: an app password (a key that opens only the sync routes below), for sync apps
  "POST /api/data/create_app_password": {
    action: "auth.create_app_password",
    auth: "key",
    summary: "Sync server: a new app password (shown once) that opens only the gPodder and Nextcloud sync routes",
  },

  // Profile and settings
  "PUT /api/data/set_fullname/{user_id}": { action: "users.set_fullname", auth: "key" },
  "PUT /api/data/set_password/{user_id}": { action: "users.set_password", auth: "key" },
  "PUT /api/data/user/set_email": { action: "users.set_email", auth: "key" },
  "PUT /api/data/user/set_username": { action: "users.set_username", auth: "key" },
  "GET /api/data/get_theme/{user_id}": { action: "users.get_theme", auth: "key" },
  "PUT /api/data/user/set_theme": { action: "users.set_theme", auth: "key" },
  "POST /api/data/setup_time_info": { action: "users.setup_time_info", auth: "key" },
  "PUT /api/data/update_timezone": { action: "users.update_timezone", auth: "key" },
  "PUT /api/data/update_date_format": { action: "users.update_date_format", auth: "key" },
  "PUT /api/data/update_time_format": { action: "users.update_time_format", auth: "key" },
  "GET /api/data/get_time_info": { action: "users.get_time_info", auth: "key" },
  "GET /api/data/get_auto_complete_seconds/{user_id}": { action: "users.get_auto_complete_seconds", auth: "key" },
  "PUT /api/data/update_auto_complete_seconds": { action: "users.update_auto_complete_seconds", auth: "key" },
  "POST /api/data/user/set_playback_speed": { action: "users.set_playback_speed", auth: "key" },
  "POST /api/data/get_playback_speed": { action: "users.get_playback_speed", auth: "key" },
  "GET /api/data/user/get_podcast_cover_preference": { action: "users.get_podcast_cover_preference", auth: "key" },
  "POST /api/data/user/set_global_podcast_cover_preference": { action: "users.set_global_podcast_cover_preference", auth: "key" },
  "GET /api/data/get_available_languages": { action: "users.get_available_languages", auth: "none" },
  "GET /api/data/get_server_default_language": { action: "users.get_server_default_language", auth: "none" },
  "POST /api/data/user/custom_themes": { action: "users.create_custom_theme", auth: "key" },
  "GET /api/data/user/custom_themes/{user_id}": { action: "users.get_custom_themes", auth: "key" },
  "DELETE /api/data/user/custom_themes": { action: "users.delete_custom_theme", auth: "key" },
  // Not in the spec: the user's own switch of the sync server (gPodder / Nextcloud routes)
  "GET /api/data/user/sync_server/{user_id}": {
    action: "users.get_sync_server",
    auth: "key",
    summary: "Sync server: whether this account may use the gPodder and Nextcloud sync routes, and whether the server offers them",
  },
  "PUT /api/data/user/sync_server": {
    action: "users.set_sync_server",
    auth: "key",
    summary: "Sync server: switch the gPodder and Nextcloud sync routes on or off for this account",
  },
  // Preferences (PinePods' web client): start page, default volume, language, collection add mode, default auto-delete days
  "GET /api/data/startpage": { action: "users.get_startpage", auth: "key" },
  "POST /api/data/startpage": { action: "users.set_startpage", auth: "key" },
  "POST /api/data/get_default_volume": { action: "users.get_default_volume", auth: "key" },
  "POST /api/data/user/set_default_volume": { action: "users.set_default_volume", auth: "key" },
  "GET /api/data/get_user_language": { action: "users.get_user_language", auth: "key" },
  "PUT /api/data/update_user_language": { action: "users.update_user_language", auth: "key" },
  "GET /api/data/collection_add_ui": { action: "users.get_collection_add_ui", auth: "key" },
  "POST /api/data/collection_add_ui": { action: "users.set_collection_add_ui", auth: "key" },
  "POST /api/data/user/set_auto_download_delete_days": { action: "users.set_auto_download_delete_days", auth: "key" },

  // User administration
  "PUT /api/data/user/set_isadmin": { action: "users.set_isadmin", auth: "admin" },
  "DELETE /api/data/user/delete/{user_id}": { action: "users.delete_user", auth: "admin" },
  "GET /api/data/user/final_admin/{user_id}": { action: "users.final_admin", auth: "admin" },
  "GET /api/data/get_user_info": {
    action: "users.get_user_info",
    auth: "admin",
    summary: "Accounts: every user (id, names, email, admin flag) for the admin's user list",
  },

  // MFA (TOTP)
  "GET /api/data/generate_mfa_secret/{user_id}": { action: "users.generate_mfa_secret", auth: "key" },
  "POST /api/data/verify_temp_mfa": { action: "users.verify_temp_mfa", auth: "key" },
  "POST /api/data/verify_mfa": { action: "users.verify_mfa", auth: "key" },
  "GET /api/data/check_mfa_enabled/{user_id}": { action: "users.check_mfa_enabled", auth: "key" },
  "DELETE /api/data/delete_mfa": { action: "users.delete_mfa", auth: "key" },
  "POST /api/data/save_mfa_secret": {
    action: "users.save_mfa_secret",
    auth: "key",
    summary: "MFA: turn MFA on with a base32 TOTP secret the client made (at least 128 bits)",
  },
  "POST /api/data/verify_mfa_and_get_key": { action: "auth.verify_mfa_and_get_key", auth: "none" },

  // Password reset by mail and the admin's mail settings (save and test have no path in the spec: these are the ones clients of this API family call)
  "POST /api/data/reset_password_create_code": { action: "users.reset_password_create_code", auth: "none" },
  "POST /api/data/verify_and_reset_password": { action: "users.verify_and_reset_password", auth: "none" },
  "POST /api/data/save_email_settings": { action: "notifications.save_email_settings", auth: "admin" },
  "GET /api/data/get_email_settings": { action: "notifications.get_email_settings", auth: "admin" },
  "POST /api/data/send_test_email": { action: "notifications.send_test_email", auth: "admin" },

  // OIDC login (list and remove have no path in the spec: these are the ones clients of this API family call)
  "POST /api/data/add_oidc_provider": { action: "oidc.add_oidc_provider", auth: "admin" },
  "GET /api/data/list_oidc_providers": { action: "oidc.list_oidc_providers", auth: "admin" },
  "DELETE /api/data/remove_oidc_provider": { action: "oidc.remove_oidc_provider", auth: "admin" },
  "POST /api/data/remove_oidc_provider": { action: "oidc.remove_oidc_provider", auth: "admin" },
  "PUT /api/data/update_oidc_provider/{provider_id}": {
    action: "oidc.update_oidc_provider",
    auth: "admin",
    summary: "OIDC: change a provider (an empty client_secret keeps the stored one)",
  },
  "GET /api/data/public_oidc_providers": { action: "oidc.public_oidc_providers", auth: "none" },
  "POST /api/auth/store_state": { action: "oidc.store_state", auth: "none" },
  "GET /api/auth/callback": { action: "oidc.callback", auth: "none" },

  // Podcasts and subscriptions (the podcast_id operations answer 404 unless the caller is subscribed or an admin)
  "POST /api/data/add_podcast": { action: "podcasts.add_podcast", auth: "key" },
  "POST /api/data/add_custom_podcast": { action: "podcasts.add_custom_podcast", auth: "key" },
  "POST /api/data/remove_podcast": { action: "podcasts.remove_podcast", auth: "key" },
  "POST /api/data/remove_podcast_name": { action: "podcasts.remove_podcast_name", auth: "key" },
  "POST /api/data/remove_podcast_id": { action: "podcasts.remove_podcast_id", auth: "key" },
  "GET /api/data/return_pods/{user_id}": { action: "podcasts.return_pods", auth: "key" },
  "GET /api/data/return_pods_extra/{user_id}": { action: "podcasts.return_pods_extra", auth: "key" },
  "GET /api/data/check_podcast": { action: "podcasts.check_podcast", auth: "key" },
  "GET /api/data/get_podcast_id": { action: "podcasts.get_podcast_id", auth: "key" },
  "GET /api/data/get_podcast_details": { action: "podcasts.get_podcast_details", auth: "key" },
  "GET /api/data/get_podcast_details_dynamic": { action: "podcasts.get_podcast_details_dynamic", auth: "key" },
  "POST /api/data/update_feed_cutoff_days": { action: "podcasts.update_feed_cutoff_days", auth: "key" },
  "GET /api/data/get_feed_cutoff_days": { action: "podcasts.get_feed_cutoff_days", auth: "key" },
  "POST /api/data/add_category": { action: "podcasts.add_category", auth: "key" },
  "POST /api/data/remove_category": { action: "podcasts.remove_category", auth: "key" },
  "PUT /api/data/update_podcast_info": { action: "podcasts.update_podcast_info", auth: "key" },
  "POST /api/data/enable_auto_download": { action: "podcasts.enable_auto_download", auth: "key" },
  "POST /api/data/get_auto_download_status": { action: "podcasts.get_auto_download_status", auth: "key" },
  "GET /api/data/check_episode_in_db/{user_id}": { action: "episodes.check_episode_in_db", auth: "key" },
  "GET /api/data/get_podcast_id_from_ep_name": { action: "episodes.get_podcast_id_from_ep_name", auth: "key" },
  "GET /api/data/get_podcast_id_from_ep_id": { action: "episodes.get_podcast_id_from_ep_id", auth: "key" },
  // Not in the spec: PinePods' mobile app asks the podcast of an episode with the id in the path (the caller's own podcasts)
  "GET /api/data/get_podcast_id_from_ep/{episode_id}": {
    action: "episodes.get_podcast_id_from_ep",
    auth: "key",
    summary: "The podcast of one of the caller's episodes, the episode id in the path (get_podcast_id_from_ep_id's answer)",
  },
  "GET /api/data/get_episode_id_ep_name": { action: "episodes.get_episode_id_ep_name", auth: "key" },
  "GET /api/data/podcast_episodes": { action: "episodes.podcast_episodes", auth: "key" },
  "GET /api/data/return_episodes/{user_id}": { action: "episodes.return_episodes", auth: "key" },
  "POST /api/data/update_episode_duration": { action: "episodes.update_episode_duration", auth: "key" },
  "GET /api/data/fetch_podcast_feed": { action: "feeds.fetch_podcast_feed", auth: "key" },
  "GET /api/data/refresh_pods": { action: "feeds.refresh_pods", auth: "key" },
  // Not in the spec: the inbox of new episodes and per podcast episode filters (issue 30; docs/library.md "Inbox and episode filters")
  "GET /api/data/inbox": { action: "episodes.inbox", auth: "key", summary: "Episodes since subscribing not heard, queued, saved, downloaded or dismissed" },
  "GET /api/data/inbox/count": { action: "episodes.inbox_count", auth: "key", summary: "How many episodes the inbox holds" },
  "POST /api/data/inbox/dismiss": { action: "episodes.inbox_dismiss", auth: "key", summary: "Take episode_ids, or podcast_id's inbox, out" },
  "GET /api/data/podcast_filters": { action: "podcasts.podcast_filters", auth: "key", summary: "The user's episode filter of a podcast" },
  "POST /api/data/podcast_filters": { action: "podcasts.set_podcast_filters", auth: "key", summary: "Set the user's episode filter of a podcast" },

  // Listening (issue 8): saves, progress and history, completion, bulk, playback settings of a podcast, library reads
  "POST /api/data/save_episode": { action: "episodes.save_episode", auth: "key" },
  "POST /api/data/remove_saved_episode": { action: "episodes.remove_saved_episode", auth: "key" },
  "GET /api/data/saved_episode_list/{user_id}": { action: "episodes.saved_episode_list", auth: "key" },
  "POST /api/data/record_podcast_history": { action: "episodes.record_podcast_history", auth: "key" },
  "POST /api/data/record_listen_duration": { action: "episodes.record_listen_duration", auth: "key" },
  "GET /api/data/user_history/{user_id}": { action: "episodes.user_history", auth: "key" },
  "PUT /api/data/increment_listen_time/{user_id}": { action: "episodes.increment_listen_time", auth: "key" },
  "PUT /api/data/increment_played/{user_id}": { action: "episodes.increment_played", auth: "key" },
  "POST /api/data/mark_episode_completed": { action: "episodes.mark_episode_completed", auth: "key" },
  "POST /api/data/mark_episode_uncompleted": { action: "episodes.mark_episode_uncompleted", auth: "key" },
  "GET /api/data/auto_complete_episodes": { action: "episodes.auto_complete_episodes", auth: "key" },
  "POST /api/data/bulk_mark_episodes_completed": { action: "episodes.bulk_mark_episodes_completed", auth: "key" },
  "POST /api/data/bulk_save_episodes": { action: "episodes.bulk_save_episodes", auth: "key" },
  "POST /api/data/bulk_queue_episodes": { action: "episodes.bulk_queue_episodes", auth: "key" },
  "POST /api/data/podcast/set_playback_speed": { action: "podcasts.set_podcast_playback_speed", auth: "key" },
  "POST /api/data/clear_podcast_playback_speed": { action: "podcasts.clear_podcast_playback_speed", auth: "key" },
  "POST /api/data/adjust_skip_times": { action: "podcasts.adjust_skip_times", auth: "key" },
  "POST /api/data/get_play_episode_details": { action: "podcasts.get_play_episode_details", auth: "key" },
  "POST /api/data/enable_auto_play_next": { action: "podcasts.enable_auto_play_next", auth: "key" },
  "POST /api/data/get_auto_play_next_status": { action: "podcasts.get_auto_play_next_status", auth: "key" },
  "POST /api/data/podcast/favorite_status": { action: "podcasts.favorite_status", auth: "key" },
  // Per podcast automation (PinePods' web client): favourite, auto-queue, auto-delete of completed downloads, skip times, index id
  "PUT /api/data/podcast/toggle_favorite": { action: "podcasts.toggle_favorite", auth: "key" },
  "POST /api/data/enable_auto_queue": { action: "podcasts.enable_auto_queue", auth: "key" },
  "POST /api/data/get_auto_queue_status": { action: "podcasts.get_auto_queue_status", auth: "key" },
  "POST /api/data/podcast/set_auto_download_delete_days": { action: "podcasts.set_podcast_auto_download_delete_days", auth: "key" },
  "POST /api/data/clear_podcast_auto_download_delete_days": { action: "podcasts.clear_podcast_auto_download_delete_days", auth: "key" },
  "POST /api/data/get_auto_download_delete_days": { action: "podcasts.get_auto_download_delete_days", auth: "key" },
  // Not in the spec: retention of downloads, the user's default and a podcast's own (issue 30; docs/library.md "Retention of downloads")
  "GET /api/data/retention": { action: "podcasts.get_retention", auth: "key", summary: "Download retention in force: a podcast's or the default" },
  "POST /api/data/retention": { action: "podcasts.set_retention", auth: "key", summary: "Set a podcast's or the default download retention" },
  "DELETE /api/data/retention": { action: "podcasts.clear_retention", auth: "key", summary: "A podcast's own retention goes: the user's default applies" },
  "POST /api/data/get_auto_skip_times": { action: "podcasts.get_auto_skip_times", auth: "key" },
  "POST /api/data/update_podcast_index_id": { action: "podcasts.update_podcast_index_id", auth: "key" },
  "POST /api/data/get_next_podcast_episode": { action: "episodes.get_next_podcast_episode", auth: "key" },
  "POST /api/data/get_episode_metadata": { action: "episodes.get_episode_metadata", auth: "key" },
  "GET /api/data/get_stats": { action: "episodes.get_stats", auth: "key" },
  "GET /api/data/get_extended_stats": { action: "episodes.get_extended_stats", auth: "key" },
  "GET /api/data/home_overview": { action: "episodes.home_overview", auth: "key" },
  // Recommendations from this server's own data (PinePods' web client reads the podcasts; the episodes are not among its calls)
  "GET /api/data/recommendations": { action: "podcasts.recommendations", auth: "key" },
  "GET /api/data/recommendations/episodes": { action: "podcasts.recommended_episodes", auth: "key" },
  "POST /api/data/search_data": { action: "episodes.search_data", auth: "key" },
  "GET /api/data/get_service_version": { action: "api.service_version", auth: "key" },
  // Not in the spec: PinePods' clients' names of the version and of the podcast search through this server (the search service, via the broker)
  "GET /api/data/get_pinepods_version": {
    action: "api.service_version",
    auth: "key",
    summary: "The server's version under PinePods' clients' name (get_service_version's answer)",
  },
  "GET /api/data/proxy_search": {
    action: "podcasts.proxy_search",
    auth: "key",
    summary: "Podcast search of the search service (query, index, search_type as its GET /api/search) for clients that search through this server",
  },

  // Video channels and podcast people (issue 11; channel search and details come from the search service)
  "GET /api/data/search_vidsite_channels": { action: "vidsite.search_vidsite_channels", auth: "key" },
  "GET /api/data/check_vidsite_channel": { action: "vidsite.check_vidsite_channel", auth: "key" },
  "POST /api/data/vidsite/subscribe": { action: "vidsite.subscribe", auth: "key" },
  "GET /api/data/vidsite_episodes": { action: "vidsite.vidsite_episodes", auth: "key" },
  "POST /api/data/remove_vidsite_channel": { action: "vidsite.remove_vidsite_channel", auth: "key" },
  "GET /api/data/podpeople/discover": { action: "people.discover", auth: "key" },
  "GET /api/data/podpeople/host_podcasts": { action: "people.host_podcasts", auth: "key" },
  "GET /api/data/refresh_hosts": { action: "people.refresh_hosts", auth: "admin" },
  // Following people across podcasts (PinePods' web client; the following service)
  "POST /api/data/person/subscribe/{user_id}/{person_id}": { action: "following.follow", auth: "key" },
  "DELETE /api/data/person/unsubscribe/{user_id}/{person_id}": { action: "following.unfollow", auth: "key" },
  "GET /api/data/person/subscriptions/{user_id}": { action: "following.followed", auth: "key" },
  "GET /api/data/person/episodes/{user_id}/{person_id}": { action: "following.person_episodes", auth: "key" },
  "GET /api/data/person/feed/{user_id}": { action: "following.person_feed", auth: "key" },

  // Sync (podsync: a gPodder v2 server; cloudsync: Nextcloud gpoddersync) and push notifications of new episodes.
  // initiate_cloudsync_login and toggle_notifications have no path in the spec: these are the ones clients of this API family call.
  "POST /api/data/add_podsync_server": { action: "sync.add_podsync_server", auth: "key" },
  "GET /api/data/check_podsync_settings/{user_id}": { action: "sync.check_podsync_settings", auth: "key" },
  "GET /api/data/get_podsync_settings/{user_id}": { action: "sync.get_podsync_settings", auth: "key" },
  "POST /api/data/verify_podsync_auth": { action: "sync.verify_podsync_auth", auth: "key" },
  "GET /api/data/podsync/status": { action: "sync.podsync_status", auth: "key" },
  "POST /api/data/podsync/toggle": { action: "sync.podsync_toggle", auth: "key" },
  "GET /api/podsync/default_device": { action: "sync.default_device", auth: "key" },
  "GET /api/podsync/devices": { action: "sync.devices", auth: "key" },
  "POST /api/podsync/devices": { action: "sync.create_device", auth: "key" },
  "GET /api/podsync/devices/{user_id}": { action: "sync.user_devices", auth: "key" },
  "GET /api/podsync/podsync_statistics": { action: "sync.podsync_statistics", auth: "key" },
  "POST /api/podsync/set_default/{device_id}": { action: "sync.set_default_device", auth: "key" },
  "POST /api/podsync/sync": { action: "sync.sync_now", auth: "key" },
  "POST /api/podsync/sync/force": { action: "sync.force_sync", auth: "key" },
  "GET /api/podsync/test-connection": { action: "sync.test_connection", auth: "key" },
  "GET /api/data/refresh_podsync_subscriptions": { action: "sync.refresh_podsync_subscriptions", auth: "key" },
  "DELETE /api/data/remove_podcast_sync": {
    action: "sync.remove_podcast_sync",
    auth: "key",
    summary: "Sync: remove the account of another sync server and switch this server's sync server off for the user",
  },
  "POST /api/data/initiate_cloudsync_login": { action: "sync.initiate_cloudsync_login", auth: "key" },
  "POST /api/data/add_cloudsync_server": { action: "sync.add_cloudsync_server", auth: "key" },
  "GET /api/data/refresh_cloudsync_subscriptions": { action: "sync.refresh_cloudsync_subscriptions", auth: "key" },
  // clientNames: PinePods' web client sends and reads the settings as ntfy_* and gotify_* (the documents' notifa_*, notifb_*)
  "GET /api/data/user/notification_settings": { action: "notifications.get_notification_settings", auth: "key", clientNames: true },
  "PUT /api/data/user/notification_settings": { action: "notifications.update_notification_settings", auth: "key", clientNames: true },
  "POST /api/data/user/test_notification": { action: "notifications.test_notification", auth: "key" },
  "POST /api/data/podcast/toggle_notifications": { action: "podcasts.toggle_notifications", auth: "key" },
  "PUT /api/data/podcast/toggle_notifications": { action: "podcasts.toggle_notifications", auth: "key" },
  "POST /api/data/podcast/notification_status": { action: "podcasts.notification_status", auth: "key" },

  // Queue and smart playlists
  "POST /api/data/queue_pod": { action: "queue.queue_pod", auth: "key" },
  "POST /api/data/remove_queued_pod": { action: "queue.remove_queued_pod", auth: "key" },
  "POST /api/data/clear_queue": { action: "queue.clear_queue", auth: "key" },
  "POST /api/data/reorder_queue": { action: "queue.reorder_queue", auth: "key" },
  "GET /api/data/get_queued_episodes": { action: "queue.get_queued_episodes", auth: "key" },
  "POST /api/data/create_playlist": { action: "playlists.create_playlist", auth: "key" },
  "PATCH /api/data/update_playlist": { action: "playlists.update_playlist", auth: "key" },
  "DELETE /api/data/delete_playlist": { action: "playlists.delete_playlist", auth: "key" },
  // Not in the spec: PinePods' mobile app deletes a playlist with POST (the same body)
  "POST /api/data/delete_playlist": {
    action: "playlists.delete_playlist",
    auth: "key",
    summary: "Delete a playlist, sent as POST (as DELETE /api/data/delete_playlist)",
  },
  "GET /api/data/get_playlists": { action: "playlists.get_playlists", auth: "key" },
  "GET /api/data/get_playlist_episodes": { action: "playlists.get_playlist_episodes", auth: "key" },
  "POST /api/data/get_next_playlist_episode": { action: "playlists.get_next_playlist_episode", auth: "key" },
  "GET /api/data/update_playlists": { action: "playlists.update_playlists", auth: "admin" },
  // Collections (PinePods' web client; add_podcast and remove_podcast are not among its calls)
  "POST /api/data/collections/create": { action: "collections.create", auth: "key" },
  "GET /api/data/collections/user/{user_id}": { action: "collections.list", auth: "key" },
  "GET /api/data/collections/categories/{user_id}": { action: "collections.categories", auth: "key" },
  "PATCH /api/data/collections/{collection_id}": { action: "collections.update", auth: "key" },
  "DELETE /api/data/collections/{collection_id}": { action: "collections.remove", auth: "key" },
  "POST /api/data/collections/{collection_id}/add_episode": { action: "collections.add_episode", auth: "key" },
  "POST /api/data/collections/{collection_id}/remove_episode": { action: "collections.remove_episode", auth: "key" },
  "POST /api/data/collections/{collection_id}/add_podcast": { action: "collections.add_podcast", auth: "key" },
  "POST /api/data/collections/{collection_id}/remove_podcast": { action: "collections.remove_podcast", auth: "key" },
  "GET /api/data/collections/{collection_id}/episodes": { action: "collections.episodes", auth: "key" },
  "GET /api/data/episode_collections/{user_id}/{episode_id}": { action: "collections.episode_collections", auth: "key" },
  // Not in the spec: timestamped bookmarks of episodes (issue 30; docs/library.md "Bookmarks")
  "POST /api/data/bookmarks": { action: "bookmarks.create", auth: "key", summary: "Bookmark a position of an episode, with an optional note" },
  "GET /api/data/bookmarks": { action: "bookmarks.list", auth: "key", summary: "The user's bookmarks: of one episode by position, or all newest first" },
  "PUT /api/data/bookmarks/{bookmark_id}": { action: "bookmarks.update", auth: "key", summary: "Change a bookmark's position and/or note" },
  "DELETE /api/data/bookmarks/{bookmark_id}": { action: "bookmarks.remove", auth: "key", summary: "Delete a bookmark" },

  // Tasks, downloads and media (stream and media download also take api_key in the query; HEAD answers their headers)
  "GET /api/tasks/active": { action: "tasks.active", auth: "key" },
  "GET /api/tasks/user/{user_id}": { action: "tasks.user_tasks", auth: "key" },
  "GET /api/tasks/{task_id}": { action: "tasks.task_status", auth: "key" },
  "GET /api/data/cleanup_tasks": { action: "tasks.cleanup_tasks", auth: "key" },
  "POST /api/init/startup_tasks": { action: "tasks.startup_tasks", auth: "admin", keyIn: "body" },
  "POST /api/data/download_podcast": { action: "downloads.download_podcast", auth: "key" },
  "POST /api/data/download_all_podcast": { action: "downloads.download_all_podcast", auth: "key" },
  "POST /api/data/bulk_download_episodes": { action: "downloads.bulk_download_episodes", auth: "key" },
  "POST /api/data/delete_episode": { action: "downloads.delete_episode", auth: "key" },
  "POST /api/data/bulk_delete_downloaded_episodes": { action: "downloads.bulk_delete_downloaded_episodes", auth: "key" },
  "GET /api/data/download_episode_list": { action: "downloads.download_episode_list", auth: "key" },
  "GET /api/data/podcast_download_summary/{user_id}": { action: "downloads.podcast_download_summary", auth: "key" },
  "GET /api/data/podcast_downloads_paged/{user_id}/{podcast_id}": { action: "downloads.podcast_downloads_paged", auth: "key" },
  "GET /api/data/download_status": { action: "downloads.download_status", auth: "key" },
  "GET /api/data/download_status/{user_id}": { action: "downloads.user_download_status", auth: "key" },
  "POST /api/data/enable_disable_downloads": { action: "downloads.enable_disable_downloads", auth: "admin" },
  "GET /api/data/download_metadata_settings": { action: "downloads.get_download_metadata_settings", auth: "admin" },
  "POST /api/data/download_metadata_settings": { action: "downloads.set_download_metadata_settings", auth: "admin" },
  "GET /api/data/stream/{episode_id}": { action: "downloads.stream", auth: "rss", keyIn: "query" },
  "HEAD /api/data/stream/{episode_id}": { action: "downloads.stream", auth: "rss", keyIn: "query" },
  "GET /api/episodes/{episode_id}/download": { action: "downloads.download_media", auth: "key", keyIn: "query" },
  "HEAD /api/episodes/{episode_id}/download": { action: "downloads.download_media", auth: "key", keyIn: "query" },

  // Library extras: OPML import (a durable job) and export
  "POST /api/data/import_opml": { action: "opml.import_opml", auth: "key" },
  "GET /api/data/import_progress/{user_id}": { action: "opml.import_progress", auth: "key" },
  "POST /api/data/backup_user": { action: "opml.backup_user", auth: "key" },
  // The user's RSS feed (auth rss: RSS-only keys too, in api_key; its enclosures are the stream route above)
  "GET /api/data/get_rss_key": { action: "auth.get_rss_key", auth: "key" },
  "GET /api/feed/{user_id}": { action: "rss.user_feed", auth: "rss", keyIn: "query" },
  "GET /api/data/rss_feed_status": { action: "rss.rss_feed_status", auth: "key" },
  "POST /api/data/toggle_rss_feeds": { action: "rss.toggle_rss_feeds", auth: "admin" },
  // Podcasting 2.0 data (chapters and transcripts fetched, read and cached)
  "GET /api/data/fetch_podcasting_2_data": { action: "p20.fetch_podcasting_2_data", auth: "key" },
  "GET /api/data/fetch_podcasting_2_pod_data": { action: "p20.fetch_podcasting_2_pod_data", auth: "key" },
  "POST /api/data/fetch_transcript": { action: "p20.fetch_transcript", auth: "key" },
  "GET /api/data/episode_transcript": { action: "p20.episode_transcript", auth: "key" },
  // Image proxy (no key; every hop under the outbound URL policy)
  "GET /api/proxy/image": { action: "proxy.image", auth: "none" },
  // Local podcasts (folders under LOCAL_MEDIA_DIR)
  "GET /api/data/list_local_directories": { action: "local.list_local_directories", auth: "admin" },
  "POST /api/data/add_local_podcast": { action: "local.add_local_podcast", auth: "key" },
  "POST /api/data/add_local_podcast_artwork": { action: "local.add_local_podcast_artwork", auth: "key", upload: "file" },
  "GET /api/data/detect_local_cover": { action: "local.detect_local_cover", auth: "key" },
  "POST /api/data/refresh_local_podcast": { action: "local.refresh_local_podcast", auth: "key" },
  // Not in the spec: where local podcasts' artwork_url points (no key: players load images without one)
  "GET /api/data/local_artwork/{folder_id}": { action: "local.local_artwork", auth: "none" },
  // Merged podcasts (per user)
  "POST /api/data/{podcast_id}/merge": { action: "podcasts.merge_podcasts", auth: "key" },
  "GET /api/data/{podcast_id}/merged": { action: "podcasts.get_merged_podcasts", auth: "key" },
  "POST /api/data/{podcast_id}/unmerge/{target_podcast_id}": { action: "podcasts.unmerge_podcast", auth: "key" },
  // Shared episode links (episode_by_url needs no key)
  "POST /api/data/share_episode/{episode_id}": { action: "sharing.share_episode", auth: "key" },
  "GET /api/data/episode_by_url/{url_key}": { action: "sharing.episode_by_url", auth: "none" },
  // Not in the spec: where episode_by_url's stream_url points for a local podcast's episode (the link's key is the credential)
  "GET /api/data/shared_stream/{url_key}": { action: "sharing.shared_stream", auth: "none" },
  "HEAD /api/data/shared_stream/{url_key}": { action: "sharing.shared_stream", auth: "none" },
  "DELETE /api/data/delete_shared_link": { action: "sharing.delete_shared_link", auth: "key" },
  "GET /api/data/get_user_shared_links/{user_id}": { action: "sharing.get_user_shared_links", auth: "key" },
  "PUT /api/data/extend_shared_link": { action: "sharing.extend_shared_link", auth: "key" },
  // Server backups (admin): the whole server as one JSON-lines download, the files of BACKUP_DIR, restores, the schedule
  "POST /api/data/backup_server": { action: "backups.backup_server", auth: "admin" },
  "POST /api/data/list_backup_files": { action: "backups.list_backup_files", auth: "admin" },
  "POST /api/data/delete_backup_file": { action: "backups.delete_backup_file", auth: "admin" },
  "POST /api/data/restore_backup_file": { action: "backups.restore_backup_file", auth: "admin" },
  "POST /api/data/restore_server": { action: "backups.restore_server", auth: "admin", upload: "backup_file" },
  // No key: the web client polls it while a restore replaces the accounts its key lives in
  "GET /api/data/restore_status": { action: "backups.restore_status", auth: "none", summary: "Backups: whether a restore is running now" },
  "POST /api/data/schedule_backup": { action: "backups.schedule_backup", auth: "admin" },
  "POST /api/data/get_scheduled_backup": { action: "backups.get_scheduled_backup", auth: "admin" },
  // Podcast index matching: subscriptions without a podcast index id, and those the user chose to leave so
  "POST /api/data/get_unmatched_podcasts": { action: "podcasts.get_unmatched_podcasts", auth: "key" },
  "POST /api/data/get_ignored_podcasts": { action: "podcasts.get_ignored_podcasts", auth: "key" },
  "POST /api/data/ignore_podcast_index_id": { action: "podcasts.ignore_podcast_index_id", auth: "key" },

  // gPodder API v2 sign-in (auth sync: HTTP Basic with the password or an app password, or the sessionid cookie)
  "POST /api/2/auth/{username}/login.json": {
    action: "auth.sync_session_login",
    auth: "sync",
    summary: "gPodder API v2: sign in with HTTP Basic and get the sessionid cookie",
  },
  "POST /api/2/auth/{username}/logout.json": {
    action: "auth.sync_session_logout",
    auth: "sync",
    summary: "gPodder API v2: end the sync session and clear its cookie",
  },
  // Nextcloud Login Flow v2 (apps sign in through a page of this server and get an app password)
  "POST /index.php/login/v2": {
    action: "auth.login_flow_start",
    auth: "none",
    headers: ["user-agent"],
    summary: "Nextcloud Login Flow v2: start a sign-in (the page to open, and the poll endpoint and token)",
  },
  "POST /index.php/login/v2/poll": {
    action: "auth.login_flow_poll",
    auth: "none",
    summary: "Nextcloud Login Flow v2: poll for the app password (404 until access is granted, then once)",
  },
  "GET /index.php/login/v2/flow/{flow}": {
    action: "auth.login_flow_page",
    auth: "none",
    summary: "Nextcloud Login Flow v2: the sign-in page (HTML form) a person grants the app access on",
  },
  "POST /index.php/login/v2/flow/{flow}": {
    action: "auth.login_flow_grant",
    auth: "none",
    headers: ["cookie"],
    summary: "Nextcloud Login Flow v2: the sign-in form's submission, which grants the app an app password",
  },
  // gPodder API v2 data (services/gpodder.service.ts; docs/phone-sync.md "Sync server for phones"): devices, subscriptions, episode actions, sync groups
  // (body "json": the JSON is read whatever its content type, as gPodder's client library labels it form data)
  "GET /api/2/devices/{username}.json": { action: "gpodder.devices", auth: "sync", summary: "gPodder API v2: the user's devices" },
  "POST /api/2/devices/{username}/{deviceid}.json": {
    action: "gpodder.update_device",
    auth: "sync",
    body: "json",
    summary: "gPodder API v2: create a device or change its caption and type",
  },
  "GET /api/2/subscriptions/{username}/{deviceid}.json": {
    action: "gpodder.subscription_changes",
    auth: "sync",
    summary: "gPodder API v2: subscriptions added and removed since a timestamp",
  },
  "POST /api/2/subscriptions/{username}/{deviceid}.json": {
    action: "gpodder.upload_subscription_changes",
    auth: "sync",
    body: "json",
    largeBody: true,
    summary: "gPodder API v2: upload a device's subscription changes",
  },
  "GET /api/2/episodes/{username}.json": {
    action: "gpodder.episode_actions",
    auth: "sync",
    summary: "gPodder API v2: episode actions received since a timestamp",
  },
  "POST /api/2/episodes/{username}.json": {
    action: "gpodder.upload_episode_actions",
    auth: "sync",
    body: "json",
    largeBody: true,
    summary: "gPodder API v2: upload episode actions (play positions, downloads, deletions)",
  },
  "GET /api/2/updates/{username}/{deviceid}.json": {
    action: "gpodder.device_updates",
    auth: "sync",
    summary: "gPodder API v2: a device's updates since a timestamp (subscription changes and new episodes)",
  },
  "GET /api/2/sync-devices/{username}.json": {
    action: "gpodder.sync_devices",
    auth: "sync",
    summary: "gPodder API v2: which devices are synchronized with each other",
  },
  "POST /api/2/sync-devices/{username}.json": {
    action: "gpodder.update_sync_devices",
    auth: "sync",
    body: "json",
    summary: "gPodder API v2: synchronize devices or stop synchronizing them",
  },
  // gPodder simple API: whole lists as json, opml or txt (a PUT's body is read as text, whatever its content type)
  "GET /subscriptions/{username}.{format}": {
    action: "gpodder.simple_subscriptions",
    auth: "sync",
    summary: "gPodder simple API: all the user's subscriptions as json, opml or txt",
  },
  "GET /subscriptions/{username}/{deviceid}.{format}": {
    action: "gpodder.simple_device_subscriptions",
    auth: "sync",
    summary: "gPodder simple API: a device's subscriptions as json, opml or txt",
  },
  "PUT /subscriptions/{username}/{deviceid}.{format}": {
    action: "gpodder.put_simple_subscriptions",
    auth: "sync",
    body: "text",
    largeBody: true,
    summary: "gPodder simple API: replace a device's subscriptions with the list sent (json, opml or txt)",
  },
  // Nextcloud gpoddersync app's data routes (the Nextcloud user is one device of the user, "nextcloud")
  "GET /index.php/apps/gpoddersync/subscriptions": {
    action: "gpodder.nextcloud_subscriptions",
    auth: "sync",
    summary: "Nextcloud gpoddersync: subscriptions added and removed since a timestamp",
  },
  "POST /index.php/apps/gpoddersync/subscription_change/create": {
    action: "gpodder.nextcloud_subscription_change",
    auth: "sync",
    body: "json",
    largeBody: true,
    summary: "Nextcloud gpoddersync: upload subscription changes",
  },
  "GET /index.php/apps/gpoddersync/episode_action": {
    action: "gpodder.nextcloud_episode_actions",
    auth: "sync",
    summary: "Nextcloud gpoddersync: episode actions received since a timestamp",
  },
  "POST /index.php/apps/gpoddersync/episode_action/create": {
    action: "gpodder.nextcloud_create_episode_actions",
    auth: "sync",
    body: "json",
    largeBody: true,
    summary: "Nextcloud gpoddersync: upload episode actions",
  },
};

/**
 * Not in the spec: PinePods' clients' paths of documented routes, in the third-party words the documents replace
 * (gpodder -> podsync, nextcloud -> cloudsync, youtube -> vidsite; shared/client-names.ts). Each is the route of its
 * neutral spelling (GET /api/data/check_youtube_channel is GET /api/data/check_vidsite_channel), with clientNames:
 * the clients' words are read in its params and given beside the neutral ones in its answer.
 */
const CLIENT_ALIASES = [
  "POST /api/data/add_gpodder_server",
  "POST /api/data/add_nextcloud_server",
  "GET /api/data/check_gpodder_settings/{user_id}",
  "GET /api/data/check_youtube_channel",
  "GET /api/data/get_gpodder_settings/{user_id}",
  "GET /api/data/gpodder/status",
  "POST /api/data/gpodder/toggle",
  "POST /api/data/initiate_nextcloud_login",
  "POST /api/data/remove_youtube_channel",
  "POST /api/data/verify_gpodder_auth",
  "POST /api/data/youtube/subscribe",
  "GET /api/data/youtube_episodes",
  "GET /api/gpodder/default_device",
  "POST /api/gpodder/devices",
  "GET /api/gpodder/devices/{user_id}",
  "GET /api/gpodder/gpodder_statistics",
  "POST /api/gpodder/set_default/{device_id}",
  "POST /api/gpodder/sync",
  "POST /api/gpodder/sync/force",
  "GET /api/gpodder/test-connection",
];
for (const alias of CLIENT_ALIASES) {
  const documented = neutralName(alias);
  const def = routes[documented];
  if (!def) throw new Error(`Client alias ${alias}: no route ${documented}`);
  const summary = `Client alias of ${documented} (PinePods' clients' path): the same operation, gpodder, nextcloud and youtube in params and answer standing for podsync, cloudsync and vidsite`;
  routes[alias] = { ...def, clientNames: true, summary };
}

/** moleculer-web aliases ("METHOD /path/:param") built from the table; the auth level rides on the alias. */
export function toAliases(table: Record<string, RouteDef>): Record<string, RouteDef> {
  const aliases: Record<string, RouteDef> = {};
  for (const [key, def] of Object.entries(table)) {
    // moleculer-web's multipart aliases call the action with each file's stream; one file per request.
    const upload = def.upload ? { type: "multipart", busboyConfig: { limits: { files: 1 } } } : {};
    aliases[key.replace(/\{(\w+)\}/g, ":$1")] = { ...def, ...upload };
  }
  return aliases;
}
