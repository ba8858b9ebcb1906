import { PageTitle } from "../ui";

export default function Search() {
  return <PageTitle title="Search">Search</PageTitle>;
}
