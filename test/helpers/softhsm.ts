/**
 * A throw-away PKCS#11 token: Debian's SoftHSM 2 (`apt-get install -y softhsm2`), one token per
 * test file under /dev/shm (a token on disk makes key generation 10 to 100 times slower). SoftHSM
 * reads SOFTHSM2_CONF when the library is initialised, once per process, so a test file sets it
 * before its first key backend opens and keeps one token for all its tests (node --test runs each
 * file in a process of its own). CI installs SoftHSM (.ci/run); outside CI a suite that needs it
 * skips, saying why; in CI a missing SoftHSM is an error, never a silent skip.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const UTIL = '/usr/bin/softhsm2-util';

/** Undefined when SoftHSM can run here, else why the token suites are skipped. */
export function softhsmMissing(): string | undefined {
  if (existsSync(SOFTHSM_MODULE) && existsSync(UTIL)) return undefined;
  const why = `${SOFTHSM_MODULE} does not exist: install Debian's SoftHSM (apt-get install -y softhsm2) to run the token tests`;
  if (process.env.CI === 'true') throw new Error(why);
  return why;
}

export interface SoftToken {
  module: string;
  label: string;
  pin: string;
  /** The token's folder: removing it is how a test loses the token. */
  tokens: string;
  /** The variables that point openrail at it (OPENRAIL_KEYS=pkcs11 and the PKCS#11 ones). */
  env: Record<string, string>;
  /** Deletes the token and its folder. */
  remove(): void;
}

/**
 * A fresh token labelled `label`, its user PIN `pin`, with SOFTHSM2_CONF set for this process.
 * Call it once per test file, before any key backend is opened.
 */
export function softToken(label = 'openrail-test', pin = '246810'): SoftToken {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'openrail-softhsm-'));
  const tokens = join(root, 'tokens');
  mkdirSync(tokens);
  const conf = join(root, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  execFileSync(UTIL, ['--init-token', '--free', '--label', label, '--so-pin', `so-${pin}`, '--pin', pin], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
    stdio: 'ignore',
  });
  return {
    module: SOFTHSM_MODULE,
    label,
    pin,
    tokens,
    env: {
      SOFTHSM2_CONF: conf,
      OPENRAIL_KEYS: 'pkcs11',
      OPENRAIL_PKCS11_MODULE: SOFTHSM_MODULE,
      OPENRAIL_PKCS11_TOKEN: label,
      OPENRAIL_PKCS11_PIN: pin,
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The token as another application sees it (an operator's tool): a raw pkcs11js session, read and
 * write, logged in, on the library this process shares; `objects` finds by a template.
 */
export function rawSession(token: SoftToken) {
  const lib = new pkcs11js.PKCS11();
  lib.load(token.module);
  try {
    lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (err) {
    if (!String(err).includes('CKR_CRYPTOKI_ALREADY_INITIALIZED')) throw err;
  }
  const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === token.label);
  assert.ok(slot, 'the token is there');
  const session = lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
  try {
    lib.C_Login(session, pkcs11js.CKU_USER, token.pin);
  } catch (err) {
    if (!String(err).includes('CKR_USER_ALREADY_LOGGED_IN')) throw err;
  }
  const objects = (template: pkcs11js.Template) => {
    lib.C_FindObjectsInit(session, template);
    try {
      return lib.C_FindObjects(session, 1000);
    } finally {
      lib.C_FindObjectsFinal(session);
    }
  };
  return { lib, session, slot, objects, close: () => lib.C_CloseSession(session) };
}

/** How many of the token's objects match `template` (a label, a class). */
export function countObjects(token: SoftToken, template: pkcs11js.Template): number {
  const raw = rawSession(token);
  try {
    return raw.objects(template).length;
  } finally {
    raw.close();
  }
}

/** Deletes the token's objects labelled `label`, as an operator with the token's tools would. */
export function deleteObjects(token: SoftToken, label: string): void {
  const raw = rawSession(token);
  try {
    const found = raw.objects([{ type: pkcs11js.CKA_LABEL, value: label }]);
    assert.ok(found.length > 0, `the token holds ${label}`);
    for (const object of found) raw.lib.C_DestroyObject(raw.session, object);
  } finally {
    raw.close();
  }
}
