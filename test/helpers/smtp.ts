/**
 * A real SMTP server in the test process (the smtp-server package), for the mail the service
 * sends: it keeps every message it accepts, or refuses them all when told to.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  url: string;
  messages: Array<{ to: string[]; raw: string }>;
  /** While set, every recipient is refused (a mail server that is down for us). */
  refusing: boolean;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<Mailbox> {
  const box: Mailbox = { url: '', messages: [], refusing: false, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    // No STARTTLS on loopback: the client would otherwise try the server's self-signed certificate.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (box.refusing) return callback(new Error('mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        box.messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  box.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  box.close = () => new Promise((resolve) => server.close(() => resolve()));
  return box;
}

/**
 * The six-digit code of a mail the service sent, from its body. A code is never in the subject,
 * which lock screens and mail previews show (docs/security.md): finding it there is an error.
 */
export function codeIn(raw: string): string {
  const match = /Your code is ([0-9]{6})\./.exec(raw.replace(/=\r?\n/g, ''));
  if (!match?.[1]) throw new Error(`no code in the mail:\n${raw}`);
  const subject = /^Subject:(.*(?:\r?\n[ \t].*)*)/im.exec(raw)?.[1] ?? '';
  if (subject.includes(match[1])) throw new Error(`the code stands in the subject:${subject}`);
  return match[1];
}

/** The first message to `to` after the first `skip` ones, waiting for it (mail sent after an answer arrives later). */
export async function mailTo(box: Mailbox, to: string, skip = 0, waitMs = 10_000): Promise<string> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = box.messages.filter((m) => m.to.includes(to))[skip];
    if (found) return found.raw;
    if (Date.now() > deadline) throw new Error(`no mail ${skip + 1} to ${to} within ${waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
