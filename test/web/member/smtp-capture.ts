/** A loopback SMTP server for the account tests: every mail it took, with its recipient and text. */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  to: string;
  text: string;
}

export interface SmtpCapture {
  url: string;
  mails: CapturedMail[];
  /** The 8-digit code of the newest mail to `to`. */
  codeFor(to: string): string;
  close(): Promise<void>;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, done) {
      let text = "";
      stream.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
      });
      stream.on("end", () => {
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, text });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    codeFor(to) {
      const mail = mails.filter((m) => m.to === to).at(-1);
      return /\b(\d{8})\b/.exec(mail?.text.split("\r\n\r\n").slice(1).join("\n") ?? "")?.[1] ?? "";
    },
    close: () => new Promise<void>((resolve) => smtp.close(resolve)),
  };
}
