/**
 * The navigation's "Inbox" link text with the inbox's count (GET /api/data/inbox/count): read again at every
 * page change, and set by the Inbox page as it takes episodes out. The number is part of the link's name
 * ("Inbox 3 new"); without new episodes, or when the count cannot be read, the link says "Inbox" alone.
 */
import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../api";
import { session } from "../session";

export const inboxCount = signal<number | null>(null);

export function refreshInboxCount(): void {
  const s = session.value;
  if (!s) return;
  ok(api.GET("/api/data/inbox/count", { params: { query: { user_id: s.user_id } } })).then(
    (r) => (inboxCount.value = r.count),
    // A badge that cannot be read is left out; the Inbox page says what failed.
    () => (inboxCount.value = null),
  );
}

export function InboxLabel() {
  const { path } = useLocation();
  useEffect(refreshInboxCount, [path]);
  const n = inboxCount.value;
  return (
    <>
      Inbox
      {n ? (
        <>
          {" "}
          <span class="nav-count">
            {n > 999 ? "999+" : n}
            <span class="visually-hidden"> new</span>
          </span>
        </>
      ) : null}
    </>
  );
}
