// The console's page: the login when the broker asks for one, the navigation, and the view each URL names.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, html, navigate, whenLoggedOut, ErrorNote } from './ui.js';
import { Overview } from './overview.js';
import { TopicList, TopicDetail } from './topics.js';
import { Messages } from './messages.js';
import { GroupList, GroupDetail } from './groups.js';
import { Producers } from './producers.js';
import { Transactions } from './transactions.js';
import { Replay } from './replay.js';

const VIEWS = [
  { path: /^\/$/, title: 'Overview', nav: '/', view: () => html`<${Overview} />` },
  { path: /^\/topics$/, title: 'Topics', nav: '/topics', view: () => html`<${TopicList} />` },
  { path: /^\/topics\/([^/]+)\/messages$/, title: 'Messages', nav: '/topics', view: (m) => html`<${Messages} topic=${m[1]} />` },
  { path: /^\/topics\/([^/]+)$/, title: 'Topic', nav: '/topics', view: (m) => html`<${TopicDetail} name=${m[1]} />` },
  { path: /^\/groups$/, title: 'Consumer groups', nav: '/groups', view: () => html`<${GroupList} />` },
  { path: /^\/groups\/([^/]+)$/, title: 'Consumer group', nav: '/groups', view: (m) => html`<${GroupDetail} id=${m[1]} />` },
  { path: /^\/producers$/, title: 'Producers', nav: '/producers', view: () => html`<${Producers} />` },
  { path: /^\/transactions$/, title: 'Transactions', nav: '/transactions', view: () => html`<${Transactions} />` },
  { path: /^\/replay$/, title: 'Replay', nav: '/replay', view: () => html`<${Replay} />` },
];

const NAV = [
  ['/', 'Overview'],
  ['/topics', 'Topics'],
  ['/groups', 'Consumer groups'],
  ['/producers', 'Producers'],
  ['/transactions', 'Transactions'],
  ['/replay', 'Replay'],
];

function useLocation() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((t) => t + 1);
    addEventListener('popstate', changed);
    return () => removeEventListener('popstate', changed);
  }, []);
  return location.pathname;
}

function Login({ onLogin }) {
  const [error, setError] = useState();
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    setBusy(true);
    try {
      await api('/api/login', { method: 'POST', body: { user: form.get('user'), password: form.get('password') } });
      onLogin();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="login">
    <h1>brook console</h1>
    <p>This broker asks for a SASL user. Log in with the user's password.</p>
    <form onSubmit=${submit}>
      <label for="user">User</label>
      <input id="user" name="user" autocomplete="username" required />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit" disabled=${busy}>Log in</button>
    </form>
    <${ErrorNote} error=${error} />
  </main>`;
}

function App() {
  const path = useLocation();
  const [session, setSession] = useState();
  const [error, setError] = useState();
  const check = () => api('/api/session').then(setSession, setError);
  useEffect(() => {
    check();
    whenLoggedOut(() => setSession((s) => ({ ...s, user: null })));
  }, []);
  if (error !== undefined) return html`<${ErrorNote} error=${error} />`;
  if (session === undefined) return html`<p class="loading">Loading…</p>`;
  if (session.loginRequired && session.user === null) return html`<${Login} onLogin=${check} />`;
  const decoded = decodeURI(path);
  const found = VIEWS.map((v) => [v, v.path.exec(path)]).find(([, m]) => m !== null);
  const [view, match] = found ?? [undefined, undefined];
  document.title = `${view?.title ?? 'Not found'} · brook console`;
  const logout = async () => {
    await api('/api/logout', { method: 'POST', body: {} });
    check();
  };
  return html`<a class="skip" href="#main">Skip to content</a>
    <header>
      <a class="brand" href="/">brook console</a>
      <nav aria-label="Views">
        <ul>
          ${NAV.map(([href, label]) => html`<li><a href=${href} aria-current=${view?.nav === href ? 'page' : undefined}>${label}</a></li>`)}
        </ul>
      </nav>
      ${session.user !== null && html`<span class="user">${session.user} <button type="button" onClick=${logout}>Log out</button></span>`}
    </header>
    <main id="main" tabindex="-1">
      ${
        view === undefined
          ? html`<h1>Not found</h1>
              <p>No view is at ${decoded}.</p>`
          : view.view(match.map((p) => (p === undefined ? p : decodeURIComponent(p))))
      }
    </main>`;
}

// Links inside the page change the view without a reload; the browser's back button goes back.
addEventListener('click', (e) => {
  const a = e.target.closest?.('a[href]');
  if (a === null || a === undefined || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || a.target !== '' || a.hasAttribute('download')) return;
  if (url.hash !== '' && url.pathname === location.pathname) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
  document.getElementById('main')?.focus();
});

render(html`<${App} />`, document.getElementById('app'));
