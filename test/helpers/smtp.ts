/**
 * A real SMTP peer on loopback (smtp-server) that keeps what it receives: for the tests of mail settings,
 * test mails and password-reset codes. With `auth` it requires those credentials (AUTH over plain text on
 * loopback), without it AUTH is off.
 */
import type { AddressInfo } from "net";
import { SMTPServer } from "smtp-server";

export interface ReceivedRaw {
  /** The envelope's recipients. */
  to: string[];
  /** The message as sent (headers and body). */
  raw: string;
}

export interface SmtpPeer {
  port: number;
  inbox: ReceivedRaw[];
  close(): Promise<void>;
}

export async function startSmtpPeer(auth?: { user: string; password: string }): Promise<SmtpPeer> {
  const inbox: ReceivedRaw[] = [];
  const smtp = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(given, _session, cb) {
      if (auth && given.username === auth.user && given.password === auth.password) return cb(null, { user: auth.user });
      return cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (d: Buffer) => chunks.push(d));
      stream.on("end", () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  const port = (smtp as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return { port, inbox, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
