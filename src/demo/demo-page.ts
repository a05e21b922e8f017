/**
 * The pages of `mailrisk demo` (src/demo/demo-server.ts): a plain sign-up form whose email field
 * the widget checks, and the page its submit lands on. Self-contained; the
 * Content-Security-Policy lets the page load scripts from and connect to the service
 * alone, so a request the widget made anywhere else would be refused and reported.
 */
import { createHash } from "node:crypto";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;font-weight:600;margin-top:1rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #767676;border-radius:4px}
input.mailrisk-blocked{border-color:#b00020}
.mailrisk-message{min-height:1.5rem;font-size:.9rem}
.mailrisk-block{color:#b00020;display:block}
.mailrisk-suggestion{font:inherit;color:#0645ad;background:none;border:0;padding:0;text-decoration:underline;cursor:pointer}
button[type=submit]{font:inherit;margin-top:1rem;padding:.5rem 1.25rem}`;

const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[character] ?? "",
  );
}

/** The security headers of both pages: nothing but the service's script and checks, the inline style by hash. */
export function demoPageHeaders(serviceOrigin: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": [
      "default-src 'none'",
      `script-src ${serviceOrigin}`,
      `connect-src ${serviceOrigin}`,
      `style-src ${STYLE_HASH}`,
      "form-action 'self'",
      "base-uri 'none'",
    ].join("; "),
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

function page(title: string, main: string, head = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
${head}</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The sign-up form, with the widget from `widgetUrl` checking its email field with `key`. */
export function renderSignUpPage(widgetUrl: string, key: string): string {
  return page(
    "Sign up — mailrisk demo",
    `<h1>Sign up</h1>
<p>A plain form with the mailrisk widget: try a disposable address (someone@mailinator.com), a typo (someone@gmial.com) or your own.</p>
<form method="post" action="/signed-up">
<label for="name">Name</label>
<input id="name" name="name" autocomplete="name">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required data-mailrisk>
<button type="submit">Sign up</button>
</form>`,
    `<script src="${escapeHtml(widgetUrl)}" data-key="${escapeHtml(key)}" defer></script>\n`,
  );
}

/** Where the form lands: it says the submit went through, and never repeats the address. */
export function renderSignedUpPage(): string {
  return page(
    "Signed up — mailrisk demo",
    `<h1>Signed up</h1>
<p>The form was submitted: mailrisk let the address through (or did not answer in time, and the form failed open).</p>
<p><a href="/">Back to the form</a></p>`,
  );
}
