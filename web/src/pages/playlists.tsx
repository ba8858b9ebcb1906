import { PageTitle } from "../ui";

export default function Playlists() {
  return <PageTitle title="Playlists">Playlists</PageTitle>;
}
