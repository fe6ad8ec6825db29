import { readFileSync } from 'node:fs';
import pkcs11js from 'pkcs11js';
import { ServiceError } from '../../../core/errors.ts';
import { signingUnavailable, TOKEN_RETRY_SECONDS } from './unavailable.ts';

/** The PKCS#11 token the deployment keeps its keys in (OPENRAIL_KEYS=pkcs11, docs/keys.md). */
export interface Pkcs11Options {
  /** The vendor's PKCS#11 library (OPENRAIL_PKCS11_MODULE). */
  module: string;
  /** The token, by its label (OPENRAIL_PKCS11_TOKEN) or its slot (OPENRAIL_PKCS11_SLOT). */
  token: { label: string } | { slot: number };
  /** The user PIN, or the file it is read from (read again when the token refused the one it held). */
  pin: { value: string } | { file: string };
  /** Sessions this process keeps open on the token: one signature in flight on each. */
  sessions?: number;
}

const DEFAULT_SESSIONS = 4;

/** Failures after which a new session (and the object found again) may help. */
const SESSION_LOST = new Set([
  'CKR_SESSION_HANDLE_INVALID',
  'CKR_SESSION_CLOSED',
  'CKR_USER_NOT_LOGGED_IN',
  'CKR_OBJECT_HANDLE_INVALID',
  'CKR_KEY_HANDLE_INVALID',
]);
/** Failures after which only finalising and initialising the library again helps (it lost the token). */
const LIBRARY_LOST = new Set([
  'CKR_CRYPTOKI_NOT_INITIALIZED',
  'CKR_GENERAL_ERROR',
  'CKR_DEVICE_ERROR',
  'CKR_DEVICE_REMOVED',
  'CKR_TOKEN_NOT_PRESENT',
  'CKR_SLOT_ID_INVALID',
  'CKR_TOKEN_NOT_RECOGNIZED',
]);
/** A refused PIN is never tried again by itself: a real token locks its user PIN after a few tries. */
const PIN_REFUSED = new Set(['CKR_PIN_INCORRECT', 'CKR_PIN_LOCKED', 'CKR_PIN_EXPIRED', 'CKR_PIN_INVALID', 'CKR_PIN_LEN_RANGE']);

/** The CKR_ name of a PKCS#11 failure, whatever wrapped it; the binding puts it in the message. */
export function ckrOf(err: unknown): string | undefined {
  const text = err instanceof Error ? `${err.message} ${err.stack ?? ''}` : String(err);
  return /CKR_[A-Z0-9_]+/.exec(text)?.[0];
}

/**
 * A PKCS#11 library is loaded and initialised once per process, whoever uses it: a second
 * C_Initialize answers CKR_CRYPTOKI_ALREADY_INITIALIZED, and C_Finalize ends every user's sessions.
 * A backend that finds the library lost finalises and initialises it again for all its users; the
 * others find their sessions gone and reopen them, as after any lost session.
 */
interface Library {
  lib: pkcs11js.PKCS11;
  initialised: boolean;
  users: number;
}
const LIBRARIES = new Map<string, Library>();

function libraryAt(path: string): Library {
  let library = LIBRARIES.get(path);
  if (!library) {
    const lib = new pkcs11js.PKCS11();
    lib.load(path);
    library = { lib, initialised: false, users: 0 };
    LIBRARIES.set(path, library);
  }
  return library;
}

export interface Session {
  handle: Buffer;
  /** Private key handles by CKA_ID (hex), found once per session. */
  keys: Map<string, Buffer>;
  /** The library's opening this session belongs to; one from before a reopen is dropped. */
  opening: number;
}

/**
 * The sessions one process keeps on its token (docs/keys.md, "A real HSM"): the library opened
 * once per process with the OS locking the binding's thread-pool calls need, one login, a few
 * sessions with one operation in flight on each. An operation that loses its session runs once
 * more on a new one; one that finds the library lost the token finalises and initialises it again
 * and runs once more. When that does not help, or the token refused the PIN, operations answer 503
 * `signing_unavailable` and the next attempt waits TOKEN_RETRY_SECONDS: the token is used again by
 * itself once it is back (a refused PIN only once the PIN file changes).
 */
export class TokenSessions {
  private library: Library | undefined;
  private slot: Buffer | undefined;
  /** The token's label, as it names itself (found at the first opening when a slot was configured). */
  private label: string | undefined;
  private opening = 0;
  private idle: Session[] = [];
  private open = 0;
  private readonly waiting: Array<{ resolve: (s: Session) => void; reject: (err: unknown) => void }> = [];
  /** Why the token is not usable, and until when no new attempt is made. */
  private down: { reason: string; until: number; cause?: unknown } | undefined;
  /** The PIN the token refused: not presented again. */
  private refusedPin: string | undefined;
  private closed = false;
  /** The library is open and the token found, for this pool's current opening. */
  private started = false;

  constructor(private readonly opts: Pkcs11Options) {}

  /** The token's label as it names itself, or how it was configured before it was first found. */
  get name(): string {
    const wanted = this.opts.token;
    return this.label ?? ('label' in wanted ? wanted.label : `slot ${wanted.slot}`);
  }

  /** The label of the token found (undefined before the first opening). */
  get tokenLabel(): string | undefined {
    return this.label;
  }

  /** Why the token cannot be used just now, and whether it refused the PIN (then it is reachable). */
  get problem(): { reason: string | undefined; pinRefused: boolean } {
    return { reason: this.down?.reason, pinRefused: this.refusedPin !== undefined };
  }

  /** Asks the token about itself: a lost token fails here with the failure that says so. */
  tokenInfo(): void {
    this.lib.C_GetTokenInfo(this.slot as Buffer);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.idle) {
      try {
        this.lib.C_CloseSession(s.handle);
      } catch {
        // Gone already.
      }
    }
    const library = this.library;
    this.drop(false);
    if (library && --library.users === 0) {
      if (library.initialised) library.lib.C_Finalize();
      library.initialised = false;
    }
  }

  /**
   * Runs `work` on a session of its own. A session lost midway is replaced and the work run once
   * more; a library that lost the token is finalised, initialised and the work run once more.
   * Any other failure of the token, or a second one, is the 503; a ServiceError thrown by `work`,
   * or a fault that is not the token's, passes as it is.
   */
  async run<T>(work: (s: Session) => Promise<T>): Promise<T> {
    let session = await this.acquire();
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await work(session);
        this.release(session);
        return result;
      } catch (err) {
        const ckr = err instanceof ServiceError ? undefined : ckrOf(err);
        if (!ckr || attempt > 0 || !(SESSION_LOST.has(ckr) || LIBRARY_LOST.has(ckr))) {
          if (ckr && LIBRARY_LOST.has(ckr)) this.fail(ckr, err);
          else this.release(session);
          throw ckr ? signingUnavailable(ckr, err) : err;
        }
        if (LIBRARY_LOST.has(ckr)) {
          this.drop();
          session = await this.acquire();
        } else {
          // The others may be lost too (sessions closed all at once): the retry takes a new one.
          this.discard(session);
          session = this.openSession();
        }
      }
    }
  }

  /** A session: an idle one, a new one while fewer than the pool's size are open, or the next one released. */
  private async acquire(): Promise<Session> {
    if (this.closed) throw signingUnavailable('the key store is closed');
    if (this.down && Date.now() < this.down.until) throw signingUnavailable(this.down.reason, this.down.cause);
    if (!this.started) this.start();
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.open >= (this.opts.sessions ?? DEFAULT_SESSIONS)) {
      return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    }
    return this.openSession();
  }

  /** A new session, logged in; a token that cannot open one (or log in) is lost until the next attempt. */
  private openSession(): Session {
    try {
      return this.newSession();
    } catch (err) {
      const ckr = err instanceof ServiceError ? undefined : ckrOf(err);
      if (!ckr) throw err;
      this.fail(ckr, err);
      throw signingUnavailable(ckr, err);
    }
  }

  private release(s: Session): void {
    if (s.opening !== this.opening) return;
    const next = this.waiting.shift();
    if (next) next.resolve(s);
    else this.idle.push(s);
  }

  get lib(): pkcs11js.PKCS11 {
    if (!this.library) throw signingUnavailable('the PKCS#11 library is not open');
    return this.library.lib;
  }

  /** Loads and initialises the library (once per process) and finds the token; the first session logs in. */
  private start(): void {
    try {
      if (!this.library) {
        this.library = libraryAt(this.opts.module);
        this.library.users++;
      }
      if (!this.library.initialised) {
        try {
          this.lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
        } catch (err) {
          if (ckrOf(err) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw err;
        }
        this.library.initialised = true;
      }
      this.opening++;
      const wanted = this.opts.token;
      const labelOf = (slot: Buffer) => this.lib.C_GetTokenInfo(slot).label.trim();
      this.slot = this.lib
        .C_GetSlotList(true)
        .find((slot) => ('label' in wanted ? labelOf(slot) === wanted.label : slotNumber(slot) === BigInt(wanted.slot)));
      if (!this.slot)
        throw new Error('label' in wanted ? `no token is labelled ${wanted.label}` : `slot ${wanted.slot} holds no token`);
      this.label = labelOf(this.slot);
      this.started = true;
      this.down = undefined;
    } catch (err) {
      this.fail(ckrOf(err) ?? (this.library ? (err as Error).message : 'the PKCS#11 library cannot be loaded'), err);
      throw signingUnavailable(this.down?.reason ?? 'unavailable', err);
    }
  }

  private newSession(): Session {
    const handle = this.lib.C_OpenSession(this.slot as Buffer, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      this.login(handle);
    } catch (err) {
      this.lib.C_CloseSession(handle);
      throw err;
    }
    this.open++;
    return { handle, keys: new Map(), opening: this.opening };
  }

  /** Logs the application in (once per token and process; a later session finds it logged in). */
  private login(handle: Buffer): void {
    const pin = this.pin();
    if (pin === this.refusedPin)
      throw signingUnavailable('the token refused the PIN; it is not presented again until it changes');
    try {
      this.lib.C_Login(handle, pkcs11js.CKU_USER, pin);
    } catch (err) {
      const ckr = ckrOf(err);
      if (ckr === 'CKR_USER_ALREADY_LOGGED_IN') return;
      if (ckr && PIN_REFUSED.has(ckr)) {
        this.refusedPin = pin;
        this.fail(ckr, err, false);
        throw signingUnavailable(ckr, err);
      }
      throw err;
    }
  }

  private pin(): string {
    if ('value' in this.opts.pin) return this.opts.pin.value;
    try {
      return readFileSync(this.opts.pin.file, 'utf8').trim();
    } catch (err) {
      throw signingUnavailable('the PIN file cannot be read', err);
    }
  }

  /** Closes what is left of a lost session; the next one opened logs in again if that logged the process out. */
  private discard(s: Session): void {
    try {
      this.lib.C_CloseSession(s.handle);
    } catch {
      // Already gone: that is why it is discarded.
    }
    if (s.opening === this.opening) this.open--;
  }

  /** Marks the token down for TOKEN_RETRY_SECONDS and drops every session and the library's state. */
  private fail(reason: string, cause: unknown, finalise = true): void {
    this.down = { reason, until: Date.now() + TOKEN_RETRY_SECONDS * 1000, cause };
    this.drop(finalise);
  }

  /**
   * Drops every session of this backend. `finalise`: the library lost the token, so it is
   * finalised for every user of it and initialised again at the next attempt.
   */
  private drop(finalise = true): void {
    if (finalise && this.library?.initialised) {
      try {
        this.library.lib.C_Finalize();
      } catch {
        // A library that lost the token may refuse this too; initialising again is what counts.
      }
      this.library.initialised = false;
    }
    this.started = false;
    this.opening++;
    this.idle = [];
    this.open = 0;
    // Whoever waits for a session of the dropped opening asks again on its own.
    for (const waiter of this.waiting.splice(0)) this.acquire().then(waiter.resolve, waiter.reject);
  }
}

/** A slot handle (a CK_SLOT_ID, native-endian) as a number. */
const slotNumber = (slot: Buffer) => (slot.length === 8 ? slot.readBigUInt64LE() : BigInt(slot.readUInt32LE()));
