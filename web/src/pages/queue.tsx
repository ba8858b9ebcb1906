import { PageTitle } from "../ui";

export default function Queue() {
  return <PageTitle title="Queue">Queue</PageTitle>;
}
