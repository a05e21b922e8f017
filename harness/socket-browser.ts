/**
 * A browser over real sockets from a chosen loopback source address (127.0.0.x, each
 * third byte its own /24): the log-in throttle counts client networks, which `inject`
 * only pretends. It keeps its cookies, and posts a page's form with that page's CSRF token
 * from the server's own origin.
 */
import { request } from "node:http";
import { csrfOf } from "./form-browser.js";

export interface SocketAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class SocketBrowser {
  readonly cookies = new Map<string, string>();

  /** `base`: the server's `http://127.0.0.1:port`; `from`: the source address of every request. */
  constructor(
    private readonly base: string,
    readonly from: string,
  ) {}

  get(path: string): Promise<SocketAnswer> {
    return this.send("GET", path);
  }

  /** Opens `page` and submits `fields` to `path` with its CSRF token. */
  async submit(page: string, path: string, fields: Record<string, string>): Promise<SocketAnswer> {
    const opened = await this.get(page);
    return this.post(path, { csrf: csrfOf(opened.body), ...fields });
  }

  post(path: string, fields: Record<string, string>): Promise<SocketAnswer> {
    return this.send("POST", path, new URLSearchParams(fields).toString());
  }

  private send(method: string, path: string, body?: string): Promise<SocketAnswer> {
    const url = new URL(path, this.base);
    const headers: Record<string, string> = {
      accept: "text/html",
      cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
    };
    if (body !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      headers.origin = new URL(this.base).origin;
    }
    return new Promise((resolve, reject) => {
      const sent = request(url, { method, headers, localAddress: this.from, agent: false }, (answer) => {
        let text = "";
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          text += chunk;
        });
        answer.on("end", () => {
          this.keep(answer.headers["set-cookie"]);
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text });
        });
      });
      sent.on("error", reject);
      sent.end(body);
    });
  }

  private keep(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value === "") this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
  }
}
