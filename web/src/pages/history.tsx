/** What the person listened to, newest first, a page at a time, searchable by episode or podcast. */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle, shortDate } from "../ui";
import { useDebounced, usePaged } from "../components/paged";
import { EpisodeItem, LoadMore } from "../components/episode-item";

const PAGE = 25;

export default function History() {
  const { user_id } = me();
  const { query } = useLocation();
  const [text, setText] = useState(query.q ?? "");
  const search = useDebounced(text.trim(), 300);
  const list = usePaged(
    async (offset, limit) => {
      const r = await ok(
        api.GET("/api/data/user_history/{user_id}", { params: { path: { user_id }, query: { offset, limit, ...(search ? { search } : {}) } } }),
      );
      return { items: r.data, total: r.total };
    },
    PAGE,
    [user_id, search],
  );

  const onInput = (value: string) => {
    setText(value);
    // The search stays in the address, so that back and reload keep it (the router need not know: same page).
    const q = value.trim();
    history.replaceState(history.state, "", q ? `/history?q=${encodeURIComponent(q)}` : "/history");
  };

  return (
    <>
      <PageTitle title="History">History</PageTitle>
      <form class="search-form" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search history
          <input type="search" value={text} maxLength={200} onInput={(e) => onInput(e.currentTarget.value)} />
        </label>
      </form>
      <ErrorNote error={list.error} />
      <h2 class="visually-hidden">Episodes listened to</h2>
      {list.loading && !list.items.length ? (
        <Loading what="history" />
      ) : !list.error && !list.items.length ? (
        <p class="muted">{search ? `Nothing in your history matches “${search}”.` : "Nothing listened to yet. Episodes you play appear here."}</p>
      ) : (
        <>
          <ul class="list">
            {list.items.map((e) => (
              <EpisodeItem key={e.episodeid} episode={e}>
                <span class="muted">Listened {shortDate(e.listendate)}</span>
              </EpisodeItem>
            ))}
          </ul>
          <LoadMore shown={list.items.length} total={list.total} what="episodes" loading={list.loading} hasMore={list.hasMore} more={list.more} />
        </>
      )}
    </>
  );
}
