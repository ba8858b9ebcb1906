import { PageTitle } from "../ui";

export default function Saved() {
  return <PageTitle title="Saved">Saved</PageTitle>;
}
