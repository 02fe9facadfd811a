// Shared pieces of the console's views: the template tag, the JSON API, links, pages of lists, numbers and bytes.
import { h } from 'preact';
import { useEffect, useState, useCallback } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);

/** Raised for an API answer other than 200; `status` 401 sends the page to the login. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let onLoggedOut = () => {};
export function whenLoggedOut(handler) {
  onLoggedOut = handler;
}

export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const answer = await res.json().catch(() => ({ error: res.statusText }));
  if (res.status === 401 && path !== '/api/login') onLoggedOut();
  if (!res.ok) throw new ApiError(res.status, answer.error ?? res.statusText);
  return answer;
}

/** Loads `path` (again whenever it or `version` changes): [answer, error, reload]. */
export function useApi(path, version = 0) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api(path).then(
      (data) => live && setState({ data, error: undefined }),
      (error) => live && setState((s) => ({ data: s.data, error })),
    );
    return () => {
      live = false;
    };
  }, [path, version, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return [state.data, state.error, reload];
}

/** Goes to a view's URL without reloading the page. */
export function navigate(url) {
  history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

export const enc = encodeURIComponent;

export function ErrorNote({ error }) {
  if (error === undefined || error === null) return null;
  return html`<p class="error" role="alert">${error.message ?? String(error)}</p>`;
}

/** Prev / next for a paged list: `offset` and `limit` live in the view's URL. */
export function Pager({ total, offset, count, limit, go, label }) {
  if (total <= limit && offset === 0) return null;
  return html`<nav class="pager" aria-label=${`${label} pages`}>
    <button type="button" disabled=${offset === 0} onClick=${() => go(Math.max(0, offset - limit))}>Previous</button>
    <span>${count === 0 ? 0 : offset + 1}–${offset + count} of ${total}</span>
    <button type="button" disabled=${offset + count >= total} onClick=${() => go(offset + limit)}>Next</button>
  </nav>`;
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatTime(ms) {
  return ms < 0 ? '—' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

export function formatDuration(ms) {
  const s = Math.floor(ms / 1000);
  const parts = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return first < 0
    ? '0s'
    : parts
        .slice(first, first + 2)
        .map(([n, u]) => `${n}${u}`)
        .join(' ');
}

/** The view's URL parameters, and a way to change them (which the back button undoes). */
export function useSearch() {
  const params = new URLSearchParams(location.search);
  const set = (changes) => {
    const next = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === null || v === '') next.delete(k);
      else next.set(k, String(v));
    }
    const s = next.toString();
    navigate(`${location.pathname}${s === '' ? '' : `?${s}`}`);
  };
  return [params, set];
}

let source;
const handlers = new Map();

/** Calls `handler` with each server-sent event named `event` while the view is shown. */
export function useLiveEvent(event, handler) {
  useEffect(() => {
    if (source === undefined) {
      source = new EventSource('/api/events');
      source.addEventListener('error', () => {
        // A stream the server closed (or a login that ended) is opened again by the browser itself.
      });
    }
    const listener = (e) => handler(JSON.parse(e.data));
    source.addEventListener(event, listener);
    handlers.set(listener, event);
    return () => {
      source.removeEventListener(event, listener);
      handlers.delete(listener);
      if (handlers.size === 0) {
        source.close();
        source = undefined;
      }
    };
  }, [event, handler]);
}

/** Where a paged, searchable list is, kept in the view's URL: the words searched for and the page's first item. */
export function useListPlace() {
  const [params, set] = useSearch();
  return { q: params.get('q') ?? '', offset: Number(params.get('offset') ?? 0), set };
}

/** The search box of a list; a new search starts at its first page. */
export function SearchForm({ id, label, place }) {
  const submit = (e) => {
    e.preventDefault();
    place.set({ q: new FormData(e.target).get('q'), offset: undefined });
  };
  return html`<form class="inline" role="search" onSubmit=${submit}>
    <label for=${id}>${label}</label>
    <input id=${id} name="q" value=${place.q} />
    <button type="submit">Search</button>
  </form>`;
}
