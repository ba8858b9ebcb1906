import { PageTitle } from "../ui";

export default function FirstRun() {
  return <PageTitle title="First run">First run</PageTitle>;
}
