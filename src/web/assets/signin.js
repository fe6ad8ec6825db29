// The account sign-in page (docs/account.md): while the wallet approves, the page asks every few
// seconds whether the request was approved, and continues by itself once it is. Without this
// script the page works the same with the "I approved it: continue" button. Inlined by the page.
(() => {
  const form = document.getElementById('signin-continue');
  const link = document.getElementById('signin-approve');
  const status = document.getElementById('signin-wait');
  if (!form || !link || !status) return;
  const approve = new URL(link.href);
  if (approve.origin !== location.origin) return;
  const EVERY_MS = 3000;
  // A request lasts ten minutes: stop asking after that.
  const until = Date.now() + 10 * 60 * 1000;
  status.hidden = false;

  const ask = async () => {
    if (Date.now() > until) {
      status.textContent = 'This sign-in request has ended. Reload the page for a new code.';
      return;
    }
    try {
      const res = await fetch(approve.pathname + approve.search, {
        headers: { accept: 'application/json' },
        credentials: 'omit',
        cache: 'no-store',
      });
      if (res.status === 410) {
        location.assign('/account/signin');
        return;
      }
      if (res.ok && (await res.json()).approved === true) {
        status.textContent = 'Approved. Signing you in…';
        form.submit();
        return;
      }
    } catch {
      // A network hiccup: ask again at the next turn.
    }
    setTimeout(ask, EVERY_MS);
  };
  setTimeout(ask, EVERY_MS);
})();
