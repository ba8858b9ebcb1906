import { PageTitle } from "../ui";

export default function OidcDone() {
  return <PageTitle title="Oidc done">Oidc done</PageTitle>;
}
