// The operator invitation page (docs/operators.md, "Invitations"): the mailed link carries the
// code after "#", which no browser sends to a server. This puts it into the form, takes it out of
// the address bar and the history, and hides the field the person then has no need to see.
// Without this script the person pastes the code from the mail. Inlined by the page.
(() => {
  const input = document.getElementById('code');
  const field = document.getElementById('invitation-code');
  const code = location.hash.slice(1);
  if (!input || !field || !/^[A-Za-z0-9_-]{43}$/.test(code)) return;
  input.value = code;
  history.replaceState(null, '', location.pathname);
  field.hidden = true;
})();
