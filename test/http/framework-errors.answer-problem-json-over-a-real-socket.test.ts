/**
 * What Fastify or Node's HTTP parser answer on their own is problem JSON too, tested
 * over a listening socket: a URL or headers over 16 KiB (431 `headers_too_large`, also
 * before routing), bytes that are not HTTP (400 `invalid_request`), a URL that does not
 * decode (400 `invalid_url`), a request arriving while the server shuts down (503
 * `shutting_down`).
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let port: number;
beforeAll(async () => {
  fixture = await openHttpFixture({ checker: fakeChecker() });
  port = Number(new URL(await fixture.app.listen({ host: "127.0.0.1", port: 0 })).port);
});
afterAll(() => fixture.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parse(answer: string): RawAnswer {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(":")).toLowerCase(),
      line.slice(line.indexOf(":") + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

function answerOf(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve(parse(answer)));
  });
}

async function exchange(text: string): Promise<RawAnswer> {
  const socket = await open();
  const answer = answerOf(socket);
  socket.write(text);
  return answer;
}

function expectProblem(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(answer.body);
  expect(Object.keys(body)).toEqual(["type", "title", "status", "detail", "code"]);
  expect(body).toMatchObject({ type: "about:blank", status, code });
}

describe("framework errors as problem JSON", () => {
  it("answers a URL over 16 KiB with 431 headers_too_large", async () => {
    const answer = await exchange(`GET /?domain=${"a".repeat(20_000)}.com HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectProblem(answer, 431, "headers_too_large");
    expect(JSON.parse(answer.body).detail).toContain("POST");
  });

  it("answers a browser's URL over 16 KiB (a result page's, or any with Accept: text/html) as the HTML 431 page", async () => {
    for (const request of [
      `GET /domain/${"a".repeat(20_000)}.com HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /?domain=${"a".repeat(20_000)}.com HTTP/1.1\r\nHost: x\r\nAccept: text/html,application/xhtml+xml,*/*;q=0.8\r\n\r\n`,
    ]) {
      const answer = await exchange(request);
      expect(answer.status).toBe(431);
      expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(answer.headers["content-security-policy"]).toMatch(/default-src 'none'/);
      expect(answer.body).toContain("431 Request Header Fields Too Large");
      expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
    }
  });

  it("answers headers over 16 KiB with 431, and bytes that are not HTTP with 400 invalid_request", async () => {
    expectProblem(
      await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"k".repeat(64 * 1024)}\r\n\r\n`),
      431,
      "headers_too_large",
    );
    expectProblem(await exchange("\x00\x01\x02 not http at all\r\n\r\n"), 400, "invalid_request");
    expectProblem(
      await exchange("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
      400,
      "invalid_request",
    );
    const after = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(after.status).toBe(200);
  });

  it("answers a URL that does not decode with 400 invalid_url", async () => {
    expectProblem(
      await exchange("GET /%zz%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
      400,
      "invalid_url",
    );
  });

  it("answers an unencoded + in an address with a hint to send %2B", async () => {
    const { secret } = await fixture.newKey();
    const answer = await exchange(
      `GET /?email=a+b@example.com HTTP/1.1\r\nHost: x\r\nX-Gateway-Key: ${secret}\r\nConnection: close\r\n\r\n`,
    );
    expectProblem(answer, 400, "invalid_email");
    expect(JSON.parse(answer.body).detail).toContain("%2B");
  });
});

it("answers a request that completes while the server shuts down with 503 shutting_down", async () => {
  const late = await openHttpFixture();
  try {
    const latePort = Number(new URL(await late.app.listen({ host: "127.0.0.1", port: 0 })).port);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(latePort, "127.0.0.1", () => resolve(s));
      s.on("error", reject);
    });
    const answer = answerOf(socket);
    // Half a request: the connection is busy, so closing waits for it.
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = late.app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write("\r\n");
    const problem = await answer;
    expectProblem(problem, 503, "shutting_down");
    expect(problem.headers["retry-after"]).toBe("5");
    await closed;
  } finally {
    await late.close();
  }
});
