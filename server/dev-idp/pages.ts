/**
 * HTML pages of the development identity provider: self-contained (inline CSS, no scripts, no
 * external fonts or images), so the provider works offline and a test can drive the login form
 * with plain HTTP requests.
 */

export function escapeHtml(value: unknown): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Headers for every HTML page: no caching, no framing, nothing but inline styles. */
export const HTML_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // No form-action: browsers apply it to the redirect chain after the POST, which ends at the
  // client's redirect_uri on another origin.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
});

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;margin:0;padding:40px 16px;color:#111827}
.card{max-width:340px;margin:0 auto;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15);padding:24px 28px}
h1{font-size:1.3em;font-weight:600;margin:0 0 4px}p.sub{color:#6b7280;margin:0 0 18px;font-size:.9em}
label{display:block;font-size:.85em;color:#374151;margin:10px 0 4px}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;height:38px;padding:0 10px;border:1px solid #d1d5db;border-radius:6px;font-size:1em}
button{margin-top:18px;width:100%;height:40px;border:0;border-radius:6px;background:#1d4ed8;color:#fff;font-size:1em;cursor:pointer}
button.link{background:none;color:#6b7280;height:auto;margin-top:10px;font-size:.85em}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:6px;padding:8px 10px;font-size:.9em;margin-bottom:10px}
.note{color:#6b7280;font-size:.8em;margin-top:16px}pre{white-space:pre-wrap;word-break:break-word;font-size:.85em}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<div class="card">
${body}
</div>
</body>
</html>`;
}

export interface LoginPageInput {
  /** Path the form posts to (`/interaction/{uid}/login`). */
  readonly action: string;
  /** Path of the abort form (`/interaction/{uid}/abort`). */
  readonly abortAction: string;
  readonly clientName: string;
  readonly username?: string;
  readonly error?: string;
}

/**
 * The login form. Field names are `username` and `password`; the form posts
 * application/x-www-form-urlencoded to `action`.
 */
export function loginPage(input: LoginPageInput): string {
  const error = input.error ? `<div class="error" role="alert">${escapeHtml(input.error)}</div>\n` : '';
  return page(
    'Sign in - AML development identity provider',
    `<h1>Sign in</h1>
<p class="sub">to ${escapeHtml(input.clientName)} (development identity provider)</p>
${error}<form method="post" action="${escapeHtml(input.action)}" autocomplete="off">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${escapeHtml(input.username ?? '')}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${escapeHtml(input.abortAction)}"><button type="submit" class="link">Cancel</button></form>
<p class="note">Local development provider: never expose it to a network.</p>`,
  );
}

export function messagePage(title: string, entries: Readonly<Record<string, unknown>>): string {
  const rows = Object.entries(entries)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<pre><strong>${escapeHtml(k)}</strong>: ${escapeHtml(v)}</pre>`)
    .join('\n');
  return page(title, `<h1>${escapeHtml(title)}</h1>\n${rows}`);
}

/** The RP-initiated logout confirmation; `form` is oidc-provider's hidden form (id op.logoutForm). */
export function logoutPage(host: string, form: string): string {
  return page(
    'Sign out',
    `<h1>Sign out from ${escapeHtml(host)}?</h1>
${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="link">No, stay signed in</button>`,
  );
}
