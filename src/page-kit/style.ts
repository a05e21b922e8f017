/**
 * The one stylesheet of every page: inline in each page's `<style>` and allowed by its
 * hash in the Content-Security-Policy (page-headers.ts), so no other style would apply.
 * Each selector is declared once.
 */
import { createHash } from "node:crypto";

export const STYLE = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#f5f6f8}
a{color:#1f4fbf}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #1f4fbf;outline-offset:2px}
.wrap{max-width:60rem;margin:0 auto;padding:0 1rem}
.site{background:#fff;border-bottom:1px solid #d9dce1}
.site .wrap{display:flex;align-items:center;gap:1rem;min-height:3.25rem}
.brand{font-weight:700;font-size:1.15rem;color:#1a1a1a;text-decoration:none}
.brand span{color:#1f4fbf}
.way-in{margin-left:auto}
.way-in ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1rem}
.way-in a{font-weight:600}
main{display:block;flex:1 0 auto;padding:1.5rem 0 2rem}
h1{font-size:1.6rem;line-height:1.2;margin:0 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.6rem;padding:1rem 1.1rem;margin:0 0 1rem;min-width:0}
.lead{font-size:1.05rem;color:#3d4450;margin:0 0 1rem}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
form.search label{flex:1 0 100%;font-weight:600}
form.search input{flex:1 1 12rem;min-width:0;font:inherit;padding:.55rem .7rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a}
form.search button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border:0;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer}
.hint{font-size:.9rem;color:#4b5260;margin:.5rem 0 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
code{background:#eef0f3;padding:.05rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
pre{background:#1e2430;color:#f1f3f6;padding:.75rem .9rem;border-radius:.4rem;margin:.4rem 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{background:none;padding:0;color:inherit}
.verdict{border-width:2px}
.verdict.block{border-color:#b3261e}
.verdict.allow{border-color:#1b6e3a}
.eyebrow{margin:0;font-size:.85rem;text-transform:uppercase;letter-spacing:.05em;color:#4b5260}
.decision{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem .9rem;margin:.25rem 0 .75rem}
.badge{display:inline-block;margin:0;font-weight:800;font-size:1.25rem;letter-spacing:.03em;padding:.25rem .9rem;border-radius:.4rem;color:#fff}
.block .badge{background:#b3261e}
.allow .badge{background:#1b6e3a}
.status{margin:0;font-size:1.05rem}
.status strong{font-weight:700}
.risk{display:grid;grid-template-columns:auto 1fr;align-items:center;gap:.4rem .9rem;margin:.5rem 0 0}
.score{margin:0;font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
.level{display:inline-block;font-size:.8rem;font-weight:700;letter-spacing:.05em;padding:.1rem .5rem;border-radius:1rem;vertical-align:middle}
.level.low{background:#e3f4e8;color:#14532d}
.level.medium{background:#fdf0d5;color:#6b4500}
.level.high{background:#fde4e1;color:#8c1d18}
meter{width:100%;height:1rem}
progress{width:100%;min-width:6rem;height:1rem}
.grid{display:grid;gap:0 1rem}
@media (min-width:48rem){.grid{grid-template-columns:1fr 1fr}h1{font-size:2rem}}
dl{margin:0;display:grid;grid-template-columns:1fr;gap:0 .9rem}
dt{color:#4b5260;font-size:.85rem}
dd{margin:0 0 .5rem;overflow-wrap:anywhere;min-width:0}
@media (min-width:30rem){dl{grid-template-columns:minmax(7rem,auto) 1fr;gap:.35rem .9rem}dt{font-size:inherit}dd{margin:0}}
.flags{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(14.5rem,1fr));gap:.25rem .35rem}
.flags li{display:flex;justify-content:space-between;gap:.5rem;padding:.2rem .55rem;border-radius:.35rem;background:#f3f4f6;color:#4b5260}
.flags li.on{background:#e6edfb;color:#15306e;font-weight:600}
.links{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.links a{display:inline-block;padding:.2rem .6rem;border:1px solid #c7cdd6;border-radius:.8rem;background:#fff;text-decoration:none;overflow-wrap:anywhere}
.links a:hover{border-color:#1f4fbf}
td .links a{white-space:nowrap;overflow-wrap:normal}
.muted{color:#4b5260}
.why{margin:.9rem 0 0;font-size:.95rem}
.evidence{margin:.25rem 0 0;padding:0 0 0 1.2rem}
.evidence li{margin:.15rem 0;overflow-wrap:anywhere}
.evidence .adds{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}
nav.area a{display:inline-block;padding:.2rem .7rem;border:1px solid #c7cdd6;border-radius:.8rem;background:#fff;text-decoration:none}
nav.area a[aria-current]{background:#1f4fbf;border-color:#1f4fbf;color:#fff}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d9dce1;vertical-align:top;overflow-wrap:normal;word-break:normal}
th,.state,td code{white-space:nowrap}
form.fields{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end;margin:.5rem 0 0}
form.fields p{display:flex;flex-direction:column;margin:0;flex:1 1 10rem;min-width:0}
form.fields label{font-weight:600;font-size:.9rem}
form.fields input,form.fields select{font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a;min-width:0}
button.act{font:inherit;font-weight:600;padding:.45rem 1rem;border:1px solid #1f4fbf;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer}
button.act.quiet{background:#fff;color:#1f4fbf}
form.stack{display:grid;gap:.35rem;max-width:28rem;margin:0 0 1rem}
form.stack label{font-weight:600;margin-top:.4rem}
form.stack input,form.stack select{font:inherit;padding:.55rem .7rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a;min-width:0}
form.stack button,form.inline button{font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer;justify-self:start;margin-top:.5rem}
form.inline{display:inline;margin:0}
form.inline button{margin:0;padding:.25rem .7rem;background:#b3261e}
.field-error{color:#b3261e;margin:0;font-size:.95rem}
form.stack fieldset{display:flex;flex-wrap:wrap;gap:.3rem 1rem;align-items:center;border:1px solid #d9dce1;border-radius:.4rem;margin:.4rem 0 0;padding:.3rem .7rem .5rem}
form.stack fieldset legend{font-weight:600;padding:0 .2rem}
form.stack fieldset label{font-weight:400;margin:0}
.nav{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
a.button{display:inline-block;font-weight:600;padding:.25rem .7rem;border-radius:.4rem;text-decoration:none;white-space:nowrap;margin:0 .3rem .3rem 0}
a.button.quiet{border:1px solid #1f4fbf;color:#1f4fbf;background:#fff}
a.button.danger,button.danger,form.stack button.danger{border:1px solid #b3261e;color:#fff;background:#b3261e}
.secret{display:block;padding:.5rem .7rem;background:#eef0f3;border-radius:.4rem;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.chart{width:100%;height:auto;max-height:14rem}
footer{border-top:1px solid #d9dce1;background:#fff;font-size:.9rem;color:#4b5260}
footer .wrap{padding-top:.9rem;padding-bottom:.9rem}
`;

/** For the Content-Security-Policy: the one stylesheet this service ever sends. */
export const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;
