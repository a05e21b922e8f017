/**
 * The frame of every HTML page (docs/api.md §7): self-contained (no external fonts,
 * scripts or images), readable on a phone; everything interpolated goes through
 * `escapeHtml`.
 */
const STYLE = `
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
h1{font-size:1.6rem;margin-bottom:.2rem}
form{display:flex;gap:.5rem;flex-wrap:wrap;margin:1.5rem 0}
input{flex:1 1 14rem;font-size:1rem;padding:.5rem;border:1px solid #888;border-radius:.3rem}
button{font-size:1rem;padding:.5rem 1rem;border:0;border-radius:.3rem;background:#1f4fbf;color:#fff}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:.2rem}
`;

export const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** A whole page; `title` is text (escaped here), `main` is HTML the caller built with `escapeHtml`. */
export function renderPage(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}
