import { PageTitle } from "../ui";

export default function Downloads() {
  return <PageTitle title="Downloads">Downloads</PageTitle>;
}
