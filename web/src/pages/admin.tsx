/**
 * The server's admin page, one section per address (/admin is the users): users, sign-in (registration and OIDC
 * providers), mail, feeds and downloads, backups. Others see "Admins only" (the API refuses them anyway).
 */
import { session } from "../session";
import { PageTitle } from "../ui";
import { UsersSection } from "../components/admin-users";
import { SignInSection } from "../components/admin-sign-in";
import { MailSection } from "../components/admin-mail";
import { ServerSection } from "../components/admin-server";
import { BackupsSection } from "../components/admin-backups";

const SECTIONS = [
  ["users", "Users", UsersSection],
  ["sign-in", "Sign-in", SignInSection],
  ["mail", "Mail", MailSection],
  ["server", "Feeds and downloads", ServerSection],
  ["backups", "Backups", BackupsSection],
] as const;

export default function Admin({ params }: { params: { section?: string } }) {
  if (!session.value?.is_admin) {
    return (
      <>
        <PageTitle title="Admins only">Admins only</PageTitle>
        <p>This page is for the server's admins. If something here needs changing, ask one of them.</p>
        <p>
          <a href="/">Go to Home</a>
        </p>
      </>
    );
  }
  const key = params.section ?? "users";
  const current = SECTIONS.find(([k]) => k === key);
  const Section = current?.[2];
  return (
    <>
      <PageTitle title={current ? `Admin: ${current[1]}` : "Admin"}>Admin</PageTitle>
      <nav aria-label="Admin sections" class="tabs">
        <ul>
          {SECTIONS.map(([k, label]) => (
            <li key={k}>
              <a href={k === "users" ? "/admin" : `/admin/${k}`} aria-current={k === key ? "page" : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {Section ? <Section key={key} /> : <p>There is no admin section “{key}”. Choose one above.</p>}
    </>
  );
}
