import { PageTitle } from "../ui";

export default function CreateAccount() {
  return <PageTitle title="Create account">Create account</PageTitle>;
}
