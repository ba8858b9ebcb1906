import { PageTitle } from "../ui";

export default function Settings() {
  return <PageTitle title="Settings">Settings</PageTitle>;
}
