import type { PrivateKeyRef } from '../../../ports/key-backend.ts';
import type { PrivateKeyColumns } from '../schema.ts';

type Columns = { [K in keyof PrivateKeyColumns]: K extends 'key_backend' ? string : PrivateKeyColumns[K] };

/** A key's private-part reference as the columns of its row (signing keys, the platform authority). */
export function privateKeyColumns(ref: PrivateKeyRef): Columns {
  return ref.backend === 'sealed'
    ? { key_backend: 'sealed', sealed_private_key: ref.sealed, token_label: null, object_label: null, object_id: null }
    : { key_backend: 'pkcs11', sealed_private_key: null, token_label: ref.token, object_label: ref.label, object_id: ref.id };
}

/** The reference a row's columns hold; a row that holds neither kind whole is refused, not guessed at. */
export function privateKeyOf(row: Columns, what: string): PrivateKeyRef {
  if (row.key_backend === 'sealed' && row.sealed_private_key !== null)
    return { backend: 'sealed', sealed: row.sealed_private_key };
  if (row.key_backend === 'pkcs11' && row.token_label !== null && row.object_label !== null && row.object_id !== null) {
    return { backend: 'pkcs11', token: row.token_label, label: row.object_label, id: row.object_id };
  }
  throw new Error(`${what} has no usable private key reference (key_backend ${row.key_backend})`);
}
