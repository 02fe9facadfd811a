// Consumer groups: the list (paged) with each group's total lag; a group's members, assignments, committed offsets and lag.
import { useEffect, useState } from 'preact/hooks';
import { html, query, useApi, useListPlace, enc, SearchForm, ErrorNote, Pager } from './ui.js';

const PAGE = 50;
const REFRESH_MS = 2000;

/** Lag moves as producers write and consumers commit: the group views refresh themselves. */
function useTicker() {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  return tick;
}

export function GroupList() {
  const place = useListPlace();
  const { q, offset, set } = place;
  const [data, error] = useApi(`/api/groups${query({ q, offset, limit: PAGE })}`, useTicker());
  return html`<h1>Consumer groups</h1>
    <${SearchForm} id="group-search" label="Group id contains" place=${place} />
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<table>
          <caption>
            ${data.total} group${data.total === 1 ? '' : 's'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">State</th>
              <th scope="col">Protocol type</th>
              <th scope="col" class="num">Lag</th>
            </tr>
          </thead>
          <tbody>
            ${data.items.map(
              (g) =>
                html`<tr>
                  <td><a href=${`/groups/${enc(g.groupId)}`}>${g.groupId}</a></td>
                  <td>${g.state}</td>
                  <td>${g.protocolType || '—'}</td>
                  <td class="num">${g.lag}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} label="Groups" total=${data.total} offset=${data.offset} count=${data.items.length} limit=${PAGE} go=${(o) => set({ offset: o })} />`
    }`;
}

export function GroupDetail({ id }) {
  const [data, error] = useApi(`/api/groups/${enc(id)}`, useTicker());
  return html`<h1>Consumer group <span class="name">${id}</span></h1>
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<dl class="facts">
          <dt>State</dt>
          <dd>${data.state}</dd>
          <dt>Protocol type</dt>
          <dd>${data.protocolType || '—'}</dd>
          <dt>Protocol</dt>
          <dd>${data.protocol || '—'}</dd>
          <dt>Members</dt>
          <dd>${data.members.length}</dd>
        </dl>
        <table>
          <caption>
            Members and their assignments
          </caption>
          <thead>
            <tr>
              <th scope="col">Member id</th>
              <th scope="col">Client id</th>
              <th scope="col">Host</th>
              <th scope="col">Assigned partitions</th>
            </tr>
          </thead>
          <tbody>
            ${data.members.map(
              (m) =>
                html`<tr>
                  <td><code>${m.memberId}</code>${m.groupInstanceId !== null && html` (static: ${m.groupInstanceId})`}</td>
                  <td>${m.clientId}</td>
                  <td>${m.clientHost}</td>
                  <td>${m.assignment.length === 0 ? '—' : m.assignment.map((a) => `${a.topic} [${a.partitions.join(', ')}]`).join('; ')}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        <table class="offsets">
          <caption>
            Committed offsets and lag
          </caption>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col" class="num">Partition</th>
              <th scope="col" class="num">Committed</th>
              <th scope="col" class="num">High watermark</th>
              <th scope="col" class="num">Lag</th>
            </tr>
          </thead>
          <tbody>
            ${data.offsets.map(
              (o) =>
                html`<tr>
                  <td><a href=${`/topics/${enc(o.topic)}`}>${o.topic}</a></td>
                  <td class="num">${o.partition}</td>
                  <td class="num">${o.offset}</td>
                  <td class="num">${o.highWatermark ?? '—'}</td>
                  <td class="num lag">${o.lag ?? '—'}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
    }`;
}
