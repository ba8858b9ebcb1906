import { PageTitle } from "../ui";

export default function Podcast() {
  return <PageTitle title="Podcast">Podcast</PageTitle>;
}
