/** Password hashing (adapters/crypto/password.ts): slow on purpose, and bounded in how many run at once. */
export interface Passwords {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** A well-formed hash no password matches: verified against when there is no operator, so that timing does not tell. */
  readonly dummyHash: string;
}
