/**
 * Smart playlists: /playlists lists them (the six every user gets, and the person's own), /playlists/:id
 * shows one's episodes as the server selects them now, a page at a time.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle, useLoad } from "../ui";
import { usePaged } from "../components/paged";
import { EpisodeItem, LoadMore } from "../components/episode-item";

const PAGE = 25;

export default function Playlists({ params }: { params?: { id?: string } }) {
  const id = Number(params?.id);
  return params?.id ? Number.isInteger(id) && id > 0 ? <Playlist id={id} /> : <NoSuchPlaylist /> : <AllPlaylists />;
}

function AllPlaylists() {
  const { user_id } = me();
  const lists = useLoad(() => ok(api.GET("/api/data/get_playlists", { params: { query: { user_id } } })), [user_id]);
  const all = lists.data?.playlists ?? [];
  return (
    <>
      <PageTitle title="Playlists">Playlists</PageTitle>
      <p class="muted">Smart playlists pick episodes by what you have heard, their length and their date, and stay up to date by themselves.</p>
      <ErrorNote error={lists.error} />
      {lists.loading && !lists.data ? (
        <Loading what="playlists" />
      ) : lists.data && !all.length ? (
        <p class="muted">No playlists yet.</p>
      ) : (
        <ul class="list">
          {all.map((p) => (
            <li key={p.playlist_id} class="card">
              <div class="body">
                <h2>
                  <a href={`/playlists/${p.playlist_id}`}>{p.name}</a>
                </h2>
                {p.description && <p class="muted meta">{p.description}</p>}
                <p class="muted meta">
                  {p.episode_count} {p.episode_count === 1 ? "episode" : "episodes"}
                  {p.is_system_playlist ? "" : " · your playlist"}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Playlist({ id }: { id: number }) {
  const { user_id } = me();
  // The playlist's own fields come with each page of its episodes.
  const [info, setInfo] = useState<{ name: string; description: string | null } | null>(null);
  const list = usePaged(
    async (offset, limit) => {
      const r = await ok(api.GET("/api/data/get_playlist_episodes", { params: { query: { user_id, playlist_id: id, offset, limit } } }));
      setInfo({ name: r.playlist_info.name, description: r.playlist_info.description });
      return { items: r.episodes, total: r.total };
    },
    PAGE,
    [user_id, id],
  );
  const name = info?.name ?? "";
  const description = info?.description;
  return (
    <>
      <PageTitle title={name || "Playlist"}>{name || "Playlist"}</PageTitle>
      <p>
        <a href="/playlists">All playlists</a>
      </p>
      {description && <p class="muted">{description}</p>}
      <ErrorNote error={list.error} />
      <h2 class="visually-hidden">Episodes</h2>
      {list.loading && !list.items.length ? (
        <Loading what="episodes" />
      ) : !list.error && !list.items.length ? (
        <p class="muted">No episode fits this playlist now.</p>
      ) : (
        <>
          <ul class="list">
            {list.items.map((e) => (
              <EpisodeItem key={e.episodeid} episode={e} />
            ))}
          </ul>
          <LoadMore shown={list.items.length} total={list.total} what="episodes" loading={list.loading} hasMore={list.hasMore} more={list.more} />
        </>
      )}
    </>
  );
}

function NoSuchPlaylist() {
  return (
    <>
      <PageTitle title="Playlist not found">Playlist not found</PageTitle>
      <p>
        <a href="/playlists">All playlists</a>
      </p>
    </>
  );
}
