/**
 * notify_followers (following.service, on episodes.created): a message on each enabled endpoint of a
 * user when a new episode names a person they follow, with the same delivery as new-episode messages
 * (background retries, the per-user NOTIFY_PER_MINUTE budget).
 */
import type { ServiceActionsSchema } from "moleculer";
import type { FollowerMessage } from "../../shared/contracts/notifications";
import type { Ctx } from "../../shared/service-types";
import type { PushMessage, PushSettingsDoc } from "./push";
import type { NotificationsThis } from "./this";

export const peopleNotifyActions: ServiceActionsSchema = {
  notify_followers: {
    visibility: "public",
    params: { messages: { type: "array", max: 10_000, items: "object" } },
    async handler(this: NotificationsThis, ctx: Ctx<{ messages: FollowerMessage[] }>): Promise<number> {
      const { messages } = ctx.params;
      const endpoints: PushSettingsDoc[] = messages.length
        ? await this.stores.push_settings.find({ query: { user_id: { $in: messages.map((m) => m.user_id) }, enabled: true } })
        : [];
      let sent = 0;
      for (const m of messages) {
        const mine = endpoints.filter((e) => e.user_id === m.user_id);
        if (!mine.length) continue;
        if (!this.takeToken(m.user_id)) {
          this.logger.warn("notification dropped: rate limit", { user_id: m.user_id, episode_id: m.episode_id });
          continue;
        }
        const msg: PushMessage = {
          event: "person.episode",
          title: `New episode with ${m.person}`,
          message: m.podcast_title ? `${m.podcast_title}: ${m.episode_title}` : m.episode_title,
          user_id: m.user_id,
          person: m.person,
          podcast_id: m.podcast_id,
          podcast_title: m.podcast_title ?? undefined,
          episode_id: m.episode_id,
          episode_title: m.episode_title,
          episode_url: m.episode_url,
          pub_date: m.pub_date,
        };
        for (const e of mine) this.deliverPush(e, msg);
        sent++;
      }
      return sent;
    },
  },
};
