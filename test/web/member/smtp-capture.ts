/** A loopback SMTP server for the account tests: every mail it took, with its recipient and text. */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  to: string;
  /** The mail as it came over the wire: headers, a blank line, the body. */
  text: string;
}

export interface SmtpCapture {
  url: string;
  mails: CapturedMail[];
  /** The 8-digit code of the newest mail to `to`. */
  codeFor(to: string): string;
  /** The body of the newest mail to `to`, its soft line breaks undone. */
  bodyFor(to: string): string;
  close(): Promise<void>;
}

/** A mail's body (after its headers), quoted-printable soft breaks and `=3D` undone. */
export function mailBody(mail: CapturedMail | undefined): string {
  return (mail?.text.split("\r\n\r\n").slice(1).join("\n") ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}

/** The first 8-digit code in a mail's body ("" when none). */
export function codeIn(mail: CapturedMail | undefined): string {
  return /\b(\d{8})\b/.exec(mailBody(mail))?.[1] ?? "";
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
  const newestTo = (to: string) => mails.filter((m) => m.to === to).at(-1);
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    codeFor: (to) => codeIn(newestTo(to)),
    bodyFor: (to) => mailBody(newestTo(to)),
    close: () => new Promise<void>((resolve) => smtp.close(resolve)),
  };
}
