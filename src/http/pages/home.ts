/**
 * The home page a browser gets on `GET /` (SPEC §7): a search form, self-contained
 * (no external fonts, scripts or images). The result pages issue fills it out.
 */
const STYLE = `
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
h1{font-size:1.6rem;margin-bottom:.2rem}
form{display:flex;gap:.5rem;flex-wrap:wrap;margin:1.5rem 0}
input{flex:1 1 14rem;font-size:1rem;padding:.5rem;border:1px solid #888;border-radius:.3rem}
button{font-size:1rem;padding:.5rem 1rem;border:0;border-radius:.3rem;background:#1f4fbf;color:#fff}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:.2rem}
`;

export function renderHomePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mailrisk — email and domain risk check</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>mailrisk</h1>
<p>Check whether sign-ups from a domain should be blocked: disposable, parked, invalid or risky.</p>
<form method="get" action="/domain/">
<label for="domain" hidden>Domain</label>
<input id="domain" name="domain" type="text" placeholder="example.com" required maxlength="320" autocomplete="off">
<button type="submit">Check</button>
</form>
<p>API: <code>POST /v2/</code> with <code>Authorization: Bearer KEY</code>, or <code>GET /?email=…</code> with <code>X-Gateway-Key: KEY</code>. See <a href="/openapi.json">openapi.json</a>.</p>
</main>
</body>
</html>
`;
}
