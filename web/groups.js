// Consumer groups: the list (paged) with each group's protocol and total lag; a group's members, assignments, committed
// offsets and lag. A consumer-protocol group (KIP-848) shows its epochs and assignor, and each member's epoch, state,
// subscription, partitions owned, pending revocation and target.
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
              <th scope="col">Protocol</th>
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
                  <td>${g.groupType}</td>
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
    ${data !== undefined && (data.groupType === 'consumer' ? html`<${ConsumerGroup} data=${data} />` : html`<${ClassicGroup} data=${data} />`)}
    ${data !== undefined && html`<${Offsets} offsets=${data.offsets} />`}`;
}

/** Partitions by topic: `orders [0, 1]; events [2]`, or a dash for none. */
function partitionList(assignment) {
  return assignment.length === 0 ? '—' : assignment.map((a) => `${a.topic} [${a.partitions.join(', ')}]`).join('; ');
}

function StaticNote({ member }) {
  return member.groupInstanceId !== null && html` (static: ${member.groupInstanceId})`;
}

/** A classic group: the assignment its leader chose for each member. */
function ClassicGroup({ data }) {
  return html`<dl class="facts">
      <dt>Group protocol</dt>
      <dd>classic</dd>
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
              <td><code>${m.memberId}</code><${StaticNote} member=${m} /></td>
              <td>${m.clientId}</td>
              <td>${m.clientHost}</td>
              <td>${partitionList(m.assignment)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/** A consumer-protocol group: the broker's target for each member, and how far each member has reconciled towards it. */
function ConsumerGroup({ data }) {
  return html`<dl class="facts">
      <dt>Group protocol</dt>
      <dd>consumer</dd>
      <dt>State</dt>
      <dd>${data.state}</dd>
      <dt>Group epoch</dt>
      <dd>${data.groupEpoch}</dd>
      <dt>Assignment epoch</dt>
      <dd>${data.assignmentEpoch}</dd>
      <dt>Assignor</dt>
      <dd>${data.assignor}</dd>
      <dt>Members</dt>
      <dd>${data.members.length}</dd>
    </dl>
    <table class="members">
      <caption>
        Members, their epochs and their partitions
      </caption>
      <thead>
        <tr>
          <th scope="col">Member id</th>
          <th scope="col">Client id</th>
          <th scope="col">Host</th>
          <th scope="col" class="num">Member epoch</th>
          <th scope="col">State</th>
          <th scope="col">Subscription</th>
          <th scope="col">Assigned partitions</th>
          <th scope="col">Pending revocation</th>
          <th scope="col">Target</th>
        </tr>
      </thead>
      <tbody>
        ${data.members.map(
          (m) =>
            html`<tr>
              <td><code>${m.memberId}</code><${StaticNote} member=${m} /></td>
              <td>${m.clientId}</td>
              <td>${m.clientHost}</td>
              <td class="num">${m.memberEpoch}</td>
              <td>${m.state}</td>
              <td>${[...m.subscribedTopicNames, ...(m.subscribedTopicRegex === null ? [] : [`/${m.subscribedTopicRegex}/`])].join(', ') || '—'}</td>
              <td>${partitionList(m.assignment)}</td>
              <td>${partitionList(m.pendingRevocation)}</td>
              <td>${partitionList(m.target)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function Offsets({ offsets }) {
  return html`<table class="offsets">
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
        ${offsets.map(
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
    </table>`;
}
