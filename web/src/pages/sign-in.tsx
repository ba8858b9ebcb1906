import { PageTitle } from "../ui";

export default function SignIn() {
  return <PageTitle title="Sign in">Sign in</PageTitle>;
}
