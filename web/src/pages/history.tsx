import { PageTitle } from "../ui";

export default function History() {
  return <PageTitle title="History">History</PageTitle>;
}
