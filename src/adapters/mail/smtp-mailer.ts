import type nodemailer from 'nodemailer';
import { whenFirstUsed } from '../../core/lazy-package.ts';
import { inSpan, SpanKind } from '../../core/tracing.ts';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';

/** nodemailer, loaded by the first SMTP mailer made: a deployment without OPENRAIL_SMTP_URL never loads it. */
const library = whenFirstUsed<typeof nodemailer>('nodemailer');

/**
 * Mail over SMTP with nodemailer. OPENRAIL_SMTP_URL is `smtp://[user:password@]host[:port]`
 * (STARTTLS when the server offers it, default port 587) or `smtps://…` (TLS from the start,
 * default port 465).
 */
export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  /** The server's host, for the span (never the user or password of the URL). */
  private readonly host: string;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    const parsed = new URL(url);
    const secure = parsed.protocol === 'smtps:';
    this.host = parsed.hostname;
    this.transport = library().createTransport({
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port === '' ? (secure ? 465 : 587) : Number(parsed.port),
      secure,
      ...(parsed.username
        ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } }
        : {}),
      // A slow or silent server must not hold a request for ever.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  /** In a client span named `mail send`: never the address, the subject or the text. */
  send(message: MailMessage): Promise<void> {
    return inSpan('mail send', SpanKind.CLIENT, { 'server.address': this.host }, async () => {
      await this.transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
    });
  }
}
