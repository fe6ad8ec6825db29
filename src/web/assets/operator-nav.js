// The filter of a long operator-app navigation (/admin, docs/admin-app.md, "Navigation"): as a
// person types, only the links whose name or `data-terms` (the pages shown on the linked page)
// hold every word typed stay, or, when no link's does, the links of the sections whose name does;
// a section with none left is hidden, and the status line says how many are left (a live region,
// so a screen reader hears it). Enter opens the first link left, Down arrow moves to it, Escape
// empties the box. Without this script the box stays hidden and every link is there. Inlined by
// the page.
(() => {
  const box = document.getElementById('nav-filter');
  const status = document.getElementById('nav-filter-status');
  const nav = box?.closest('nav');
  const wrapper = box?.closest('.nav-filter');
  if (!box || !status || !nav || !wrapper) return;
  /** Lower-case words, accents dropped, for a match that ignores case, accents and punctuation. */
  const words = (text) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const sections = [...nav.querySelectorAll('details')].map((details) => ({
    details,
    section: words(details.querySelector('summary')?.textContent ?? ''),
    items: [...details.querySelectorAll('li')].map((li) => {
      const link = li.querySelector('a');
      return { li, link, words: words(`${link?.textContent ?? ''} ${link?.dataset.terms ?? ''}`) };
    }),
  }));
  /** Each section's own open state, kept while a filter opens them all. */
  const folded = new Map();
  let first;

  const holds = (have, typed) => typed.every((word) => have.some((w) => w.includes(word)));

  const apply = () => {
    const typed = words(box.value);
    // The links whose own name holds the words; when none does, those of the sections whose name does.
    const byName = sections.some(({ items }) => items.some((item) => holds(item.words, typed)));
    let shown = 0;
    first = undefined;
    for (const { details, items, section } of sections) {
      let left = 0;
      for (const item of items) {
        const match = byName ? holds(item.words, typed) : holds(section, typed);
        item.li.hidden = !match;
        if (match) {
          left += 1;
          first ??= item.link;
        }
      }
      shown += left;
      details.hidden = left === 0;
      if (typed.length > 0) {
        if (!folded.has(details)) folded.set(details, details.open);
        details.open = true;
      } else if (folded.has(details)) {
        details.open = folded.get(details);
        folded.delete(details);
      }
    }
    status.textContent =
      typed.length === 0 ? '' : shown === 0 ? 'No page matches.' : shown === 1 ? '1 page matches.' : `${shown} pages match.`;
  };

  box.addEventListener('input', apply);
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && first) {
      event.preventDefault();
      first.click();
    } else if (event.key === 'ArrowDown' && first) {
      event.preventDefault();
      first.focus();
    } else if (event.key === 'Escape' && box.value) {
      event.preventDefault();
      box.value = '';
      apply();
    }
  });
  wrapper.hidden = false;
  // A page restored from the history keeps what was typed.
  if (box.value) apply();
})();
