/**
 * The person's own settings, one section at a time, each at its own address (/settings/<section>) so that
 * a link or a reload opens it: account, theme, two-factor authentication, API keys, phones and apps, downloads.
 */
import type { ComponentType } from "preact";
import { PageTitle } from "../ui";
import { AccountSection, ThemeSection } from "../components/settings-account";
import { MfaSection } from "../components/settings-mfa";
import { KeysSection } from "../components/settings-keys";
import { PhonesSection } from "../components/settings-phones";
import { RetentionSection } from "../components/retention-settings";

const SECTIONS: [slug: string, name: string, component: ComponentType][] = [
  ["account", "Account", AccountSection],
  ["theme", "Theme", ThemeSection],
  ["two-factor", "Two-factor authentication", MfaSection],
  ["keys", "API keys", KeysSection],
  ["phones", "Phones and apps", PhonesSection],
  ["downloads", "Downloads", RetentionSection],
];

export default function Settings({ params }: { params?: { section?: string } }) {
  const slug = params?.section ?? "account";
  const current = SECTIONS.find(([s]) => s === slug);
  const Section = current?.[2];
  return (
    <>
      <PageTitle title={current ? `${current[1]} · Settings` : "Settings"}>Settings</PageTitle>
      <nav aria-label="Settings sections" class="tabs">
        <ul>
          {SECTIONS.map(([s, name]) => (
            <li key={s}>
              <a href={`/settings/${s}`} aria-current={s === slug ? "page" : undefined}>
                {name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {Section ? <Section /> : <p>There is no such settings section. Choose one above.</p>}
    </>
  );
}
