/**
 * Show notes and podcast descriptions: HTML from feeds anyone can write. DOMPurify (an instance of our own,
 * so that its hooks touch no other use) keeps harmless markup only: no script, style, frame, form or
 * plugin element, no style/class/id or event-handler attribute, links only to http(s) and mailto, opened in a
 * new tab without an opener. Images go through the server's image proxy (the CSP loads no other host). This
 * is the app's only innerHTML.
 */
import DOMPurify, { type Config } from "dompurify";
import { useLayoutEffect, useRef } from "preact/hooks";
import { imageUrl } from "../api";

const purify = DOMPurify(window);

const CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    "iframe",
    "frame",
    "frameset",
    "script",
    "style",
    "link",
    "meta",
    "base",
    "form",
    "input",
    "button",
    "select",
    "textarea",
    "object",
    "embed",
    "applet",
    "audio",
    "video",
    "source",
    "track",
    "picture",
    "svg",
    "math",
    "template",
    "dialog",
  ],
  // class and id could borrow the app's own styles (a fixed overlay) or clobber globals.
  FORBID_ATTR: ["style", "class", "id", "name", "srcset", "sizes", "formaction", "action", "target", "ping", "background", "poster"],
  // DOMPurify tests every attribute that is not URI-safe against this (width="100" too): values without a
  // scheme pass here, and the hook below then keeps only absolute http(s) and mailto links.
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
};

/** The only links kept: absolute http(s) and mailto (no relative path into this app, no other scheme). */
const LINK = /^(?:https?:\/\/|mailto:)/i;

purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.hasAttribute("href")) {
    if (!LINK.test(node.getAttribute("href") ?? "")) node.removeAttribute("href");
    else if (node.tagName === "A" || node.tagName === "AREA") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  }
  if (node.tagName === "IMG") {
    const src = node.getAttribute("src") ?? "";
    // A data: image passes DOMPurify's own rule; only feed images by http(s), through the proxy, are shown.
    if (/^https?:/i.test(src)) node.setAttribute("src", imageUrl(src)!);
    else node.removeAttribute("src");
    node.setAttribute("loading", "lazy");
    if (!node.hasAttribute("alt")) node.setAttribute("alt", "");
  }
});

/**
 * Event-handler and style attributes and <style> elements taken out of the text before any parsing. Not for
 * safety (DOMPurify removes them, and the CSP would block them): Chromium checks the page's CSP when it merely
 * parses them, even in DOMPurify's inert document, and logs a violation for each, for everyday notes too
 * (<p style="text-align:center">). The attributes of each tag are read in order, quoted values whole.
 */
function quiet(html: string): string {
  // No pattern here can cross a "<" or nest quantifiers over the same text: linear on hostile input.
  return html
    .replace(/<style\b[^<>]*>[\s\S]*?(?:<\/style\s*>|$)/gi, "")
    .replace(
      /<([a-zA-Z][^\s/<>]*)((?:\s+[^\s/<>"'=]+(?:\s*=\s*(?:"[^"<]*"|'[^'<]*'|[^\s<>"']*))?|\s*\/)*)\s*>/g,
      (_tag, name: string, attrs: string) =>
        `<${name}${attrs.replace(/(\s|\/)([^\s/<>"'=]+)(\s*=\s*(?:"[^"<]*"|'[^'<]*'|[^\s<>"']*))?/g, (attr, sep: string, n: string) => (/^(?:on|style$)/i.test(n) ? sep : attr))}>`,
    );
}

/** The notes as safe HTML (a string for innerHTML). */
export function sanitizeNotes(html: string): string {
  return purify.sanitize(quiet(html), CONFIG);
}

/** Feeds often send plain text: its line breaks are kept. */
function isPlainText(text: string): boolean {
  return !/<[a-z][^>]*>/i.test(text);
}

export function ShowNotes({ html }: { html: string | null | undefined }) {
  const ref = useRef<HTMLDivElement>(null);
  const text = html ?? "";
  useLayoutEffect(() => {
    if (ref.current) ref.current.innerHTML = sanitizeNotes(text);
  }, [text]);
  return <div ref={ref} class={isPlainText(text) ? "notes plain" : "notes"} />;
}
