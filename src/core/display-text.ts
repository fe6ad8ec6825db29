/**
 * Text that people will read as a name (a tenant, a credential type, an enum option, a display
 * name): no control characters (NUL, escapes), no format characters (bidi overrides that reorder
 * what is shown, zero-width characters that hide a "(Demo)" mark), no lone surrogates (which no
 * store keeps as written), no private-use characters and no line or paragraph separators. The
 * zero-width joiner and non-joiner stay allowed: some scripts and emoji need them.
 */
export const DISPLAY_TEXT_PATTERN = '^(?:[^\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Zl}\\p{Zp}]|[\\u200C\\u200D])*$';

/** The same rule for a name that must also hold something visible. */
export const DISPLAY_NAME_PATTERN = '^(?=[\\s\\S]*\\S)(?:[^\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Zl}\\p{Zp}]|[\\u200C\\u200D])*$';

/** What a refused pattern means, for the message that names the field. */
export const PATTERN_MEANINGS: Record<string, string> = {
  [DISPLAY_TEXT_PATTERN]: 'contains a control, format, surrogate, private-use or separator character, which names may not',
  [DISPLAY_NAME_PATTERN]: 'must hold a visible character and no control, format, surrogate, private-use or separator character',
};

const DISPLAY_TEXT = new RegExp(DISPLAY_TEXT_PATTERN, 'u');

export const isDisplayText = (text: string) => DISPLAY_TEXT.test(text);

/** A name as it is kept: Unicode NFC, runs of white space as one space, no space at either end. */
export const normaliseName = (name: string) => name.normalize('NFC').trim().replace(/\s+/g, ' ');
