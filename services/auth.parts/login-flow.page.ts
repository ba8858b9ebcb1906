/**
 * The pages of Nextcloud's Login Flow v2 that a person sees in the browser an app opened: one small
 * HTML document, no external assets and no script (a plain form posting back to the same address),
 * inline CSS sized for a phone.
 */

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:17px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem}
h1{font-size:1.45rem;margin:0 0 .75rem}
p{margin:.5rem 0 1rem}
.app{font-weight:600;word-break:break-word}
form{background:#fff;border-radius:.75rem;padding:1.25rem 1rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
label{display:block;font-weight:600;margin:0 0 1rem}
small{font-weight:400;color:#4b5563}
input{display:block;width:100%;margin-top:.35rem;padding:.8rem .75rem;font-size:1.1rem;border:1px solid #9ca3af;border-radius:.5rem;background:#fff;color:inherit}
input:focus{outline:3px solid #93c5fd;border-color:#2563eb}
button{width:100%;padding:.9rem;font-size:1.15rem;font-weight:600;color:#fff;background:#2563eb;border:0;border-radius:.5rem;cursor:pointer}
.error{background:#fee2e2;color:#991b1b;border-radius:.5rem;padding:.75rem 1rem}
.ok{background:#dcfce7;color:#166534;border-radius:.5rem;padding:.75rem 1rem}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f9fafb}form{background:#1f2937}small{color:#d1d5db}input{background:#111827;border-color:#6b7280}}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function document(serviceName: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · ${escapeHtml(serviceName)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

export interface GrantForm {
  serviceName: string;
  appName: string;
  /** Where the form posts: the page's own address, relative (the flow id), so a sub-folder behind a proxy keeps working. */
  action: string;
  csrf: string;
  username?: string;
  error?: string;
}

/** The sign-in form: username, password, the MFA code for accounts that have it on, "Grant access". */
export function grantFormPage(f: GrantForm): string {
  const error = f.error ? `<p class="error" role="alert">${escapeHtml(f.error)}</p>\n` : "";
  return document(
    f.serviceName,
    "Connect an app",
    `<h1>Connect an app to ${escapeHtml(f.serviceName)}</h1>
<p><span class="app">${escapeHtml(f.appName)}</span> asks to sync your podcasts. Sign in to grant it access with its own app password.</p>
${error}<form method="post" action="${escapeHtml(f.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(f.csrf)}">
<label>Username<input name="user" value="${escapeHtml(f.username ?? "")}" autocomplete="username" autocapitalize="none" autocorrect="off" spellcheck="false" required></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<label>Two-factor code <small>(only if you turned it on)</small><input name="mfa_code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"></label>
<button type="submit">Grant access</button>
</form>`,
  );
}

export function grantedPage(serviceName: string, appName: string, username: string): string {
  return document(
    serviceName,
    "Access granted",
    `<h1>Access granted</h1>
<p class="ok" role="status"><span class="app">${escapeHtml(appName)}</span> now has an app password for the account <b>${escapeHtml(username)}</b>.</p>
<p>You can close this window and return to the app. The app password is listed with your API keys, where you can revoke it.</p>`,
  );
}

export function flowGonePage(serviceName: string): string {
  return document(
    serviceName,
    "Link expired",
    `<h1>This sign-in link is no longer valid</h1>
<p>It has expired (links last 20 minutes) or was already used. Start the sign-in again from the app.</p>`,
  );
}
