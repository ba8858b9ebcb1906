/**
 * Light, dark or auto (the system's choice): the user's theme on the server (get_theme / set_theme), mirrored in
 * localStorage so that the first paint of a reload already has it.
 */
import { api, ok } from "./api";
import { session } from "./session";

export type Theme = "light" | "dark" | "auto";
const STORAGE = "podcast-server.theme";

export function themeOf(name: string | null | undefined): Theme {
  const n = (name ?? "").toLowerCase();
  if (n === "light" || n === "dark") return n;
  // Other apps' theme names on the same account: dark ones look dark here.
  return /dark|nord|dracula|night|midnight|abyss|hotdog|github/.test(n) && n !== "github-light" ? "dark" : "auto";
}

export function showTheme(theme: Theme): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  localStorage.setItem(STORAGE, theme);
}

/** At start and after sign-in: the stored theme at once, the server's when it answers. */
export function applyTheme(): void {
  showTheme(themeOf(localStorage.getItem(STORAGE)));
  const s = session.value;
  if (!s) return;
  ok(api.GET("/api/data/get_theme/{user_id}", { params: { path: { user_id: s.user_id } } })).then(
    (t) => showTheme(themeOf(t.theme)),
    () => undefined,
  );
}
