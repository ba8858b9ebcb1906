import { PageTitle } from "../ui";

export default function ForgotPassword() {
  return <PageTitle title="Forgot password">Forgot password</PageTitle>;
}
