import { PageTitle } from "../ui";

export default function Podcasts() {
  return <PageTitle title="Podcasts">Podcasts</PageTitle>;
}
