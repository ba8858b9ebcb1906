import { PageTitle } from "../ui";

export default function Admin() {
  return <PageTitle title="Admin">Admin</PageTitle>;
}
