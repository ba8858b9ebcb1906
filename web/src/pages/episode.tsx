import { PageTitle } from "../ui";

export default function Episode() {
  return <PageTitle title="Episode">Episode</PageTitle>;
}
