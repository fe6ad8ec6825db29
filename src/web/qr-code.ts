import type QRCode from 'qrcode';
import { whenFirstUsed } from '../core/lazy-package.ts';

const library = whenFirstUsed<typeof QRCode>('qrcode');

/**
 * `text` as an SVG QR code, error correction M and a two-module margin: the one shape every page
 * and GET /api/qr draw. The library loads with the first code drawn.
 */
export function qrSvg(text: string): Promise<string> {
  return library().toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
