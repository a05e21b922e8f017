/** Content negotiation for `GET /`: does the client prefer HTML over JSON? (RFC 9110 §12.5.1) */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [range = "", ...params] = part.split(";");
    const [type = "", subtype = ""] = range.trim().toLowerCase().split("/");
    if (type === "" || subtype === "") continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=").map((s) => s.trim());
      if (name?.toLowerCase() === "q" && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality the client gives one media type: the most specific matching range wins. */
function quality(ranges: MediaRange[], type: string, subtype: string): number {
  let best = { specificity: -1, q: 0 };
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best.q;
}

/** True when `text/html` is acceptable and strictly preferred to `application/json`. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = quality(ranges, "text", "html");
  return html > 0 && html > quality(ranges, "application", "json");
}
