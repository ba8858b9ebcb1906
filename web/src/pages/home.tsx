import { PageTitle } from "../ui";

export default function Home() {
  return <PageTitle title="Home">Home</PageTitle>;
}
