// Topics: the list (paged, searchable) with a form to create one; a topic's partitions (their leaders and replicas with
// several nodes), files and configs (changed through IncrementalAlterConfigs), and deleting it.
import { useState } from 'preact/hooks';
import { api, html, navigate, query, useApi, useSearch, useListPlace, enc, SearchForm, ErrorNote, Pager, formatBytes, formatDuration } from './ui.js';

const PAGE = 50;

export function TopicList() {
  const place = useListPlace();
  const { q, offset, set } = place;
  const [data, error, reload] = useApi(`/api/topics${query({ q, offset, limit: PAGE })}`);
  return html`<h1>Topics</h1>
    <${SearchForm} id="topic-search" label="Topic name contains" place=${place} />
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<table>
          <caption>
            ${data.total} topic${data.total === 1 ? '' : 's'}${q === '' ? '' : ` matching “${q}”`}
          </caption>
          <${TopicHead} />
          <${TopicRows} topics=${data.items} />
        </table>
        <${Pager} label="Topics" total=${data.total} offset=${data.offset} count=${data.items.length} limit=${PAGE} go=${(o) => set({ offset: o })} />
        <${InternalTopics} topics=${data.internal} />`
    }
    <${CreateTopic} created=${reload} />`;
}

function TopicHead() {
  return html`<thead>
    <tr>
      <th scope="col">Name</th>
      <th scope="col" class="num">Partitions</th>
      <th scope="col" class="num">Messages</th>
      <th scope="col">Browse</th>
    </tr>
  </thead>`;
}

function TopicRows({ topics }) {
  return html`<tbody>
    ${topics.map(
      (t) =>
        html`<tr>
          <td><a href=${`/topics/${enc(t.name)}`}>${t.name}</a></td>
          <td class="num">${t.partitions}</td>
          <td class="num" title=${t.exact ? undefined : 'still counting: at least this many'}>${t.messages}${t.exact ? '' : '+'}</td>
          <td><a href=${`/topics/${enc(t.name)}/messages`} aria-label=${`Messages of ${t.name}`}>Messages</a></td>
        </tr>`,
    )}
  </tbody>`;
}

/** Kafka's internal topics, apart from the others: the coordinators write them, clients only read them. */
function InternalTopics({ topics }) {
  if (topics.length === 0) return null;
  return html`<section aria-labelledby="internal-topics">
    <h2 id="internal-topics">Internal topics</h2>
    <p class="hint">Where the group and transaction coordinators keep committed offsets and transaction states. Clients may read them; only the broker writes them.</p>
    <table>
      <caption>
        ${topics.length} internal topic${topics.length === 1 ? '' : 's'}
      </caption>
      <${TopicHead} />
      <${TopicRows} topics=${topics} />
    </table>
  </section>`;
}

function CreateTopic({ created }) {
  const [error, setError] = useState();
  const [done, setDone] = useState();
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const configs = Object.fromEntries(
      String(form.get('configs'))
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
        .map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1).trim()]),
    );
    try {
      const topic = await api('/api/topics', { method: 'POST', body: { name: form.get('name'), partitions: Number(form.get('partitions')), configs } });
      setError(undefined);
      setDone(topic.name);
      e.target.reset();
      created();
    } catch (err) {
      setError(err);
      setDone(undefined);
    }
  };
  return html`<section aria-labelledby="create-topic">
    <h2 id="create-topic">Create a topic</h2>
    <form class="stacked" onSubmit=${submit}>
      <label for="new-topic-name">Name</label>
      <input id="new-topic-name" name="name" required maxlength="249" />
      <label for="new-topic-partitions">Partitions</label>
      <input id="new-topic-partitions" name="partitions" type="number" min="1" max="100000" value="1" required />
      <label for="new-topic-configs">Configs, one <code>name=value</code> a line (optional)</label>
      <textarea id="new-topic-configs" name="configs" rows="2" placeholder="retention.ms=86400000"></textarea>
      <button type="submit">Create topic</button>
    </form>
    <${ErrorNote} error=${error} />
    ${done !== undefined && html`<p role="status">Created <a href=${`/topics/${enc(done)}`}>${done}</a>.</p>`}
  </section>`;
}

/** Why a partition's last stable offset is below its high watermark: the open transaction it stops at. */
function LsoHolds({ partitions }) {
  const held = partitions.filter((p) => p.holdingLso !== null && p.holdingLso !== undefined);
  return html`<p class="hint">
      The last stable offset is where read_committed consumers stop: the first offset of the oldest open transaction, else the high watermark.
    </p>
    ${held.map((p) => {
      const t = p.holdingLso;
      const id =
        t.transactionalId === null ? '' : html` (transactional id <a href=${`/transactions${query({ q: t.transactionalId })}`}>${t.transactionalId}</a>)`;
      return html`<p class="lso-hold" data-partition=${p.partition}>
        Partition ${p.partition}: last stable offset ${p.lastStableOffset} is below the high watermark ${p.highWatermark} because the transaction of
        producer ${t.producerId}${id} is open from offset ${t.firstOffset}; read_committed consumers read nothing from there until it commits or aborts.
      </p>`;
    })}`;
}

/** Numbers the console shows as having no limit: Kafka's -1, and the longest a JavaScript number counts exactly. */
const NO_LIMIT = new Set([-1, 2 ** 53 - 1]);

/** A config's value with its unit, and in larger units where it has one: `604800000 ms (7d 0h)`. */
function ConfigValue({ value, unit }) {
  if (value === null) return html`<span class="null">not set</span>`;
  const n = Number(value);
  const larger =
    unit === null || value.trim() === '' || !Number.isFinite(n)
      ? ''
      : NO_LIMIT.has(n)
        ? 'no limit'
        : n < 0
          ? ''
          : unit === 'ms'
            ? formatDuration(n)
            : formatBytes(n);
  return html`<code>${value}${unit === null ? '' : ` ${unit}`}</code>${larger === '' ? '' : ` (${larger})`}`;
}

/** One topic config: its value and default, and a form to change it through IncrementalAlterConfigs, or go back to the default. */
function ConfigRow({ topic, c, changed }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState();
  const alter = async (value) => {
    try {
      await api(`/api/topics/${enc(topic)}/configs`, { method: 'POST', body: { name: c.name, value } });
      setEditing(false);
      setError(undefined);
      changed();
    } catch (err) {
      setError(err);
    }
  };
  const submit = (e) => {
    e.preventDefault();
    void alter(String(new FormData(e.target).get('value')));
  };
  return html`<tr class=${c.own ? 'own' : ''} data-config=${c.name}>
    <td>${c.name}</td>
    <td class="value"><${ConfigValue} value=${c.value} unit=${c.unit} /></td>
    <td class="default"><${ConfigValue} value=${c.default} unit=${c.unit} /></td>
    <td class="hint">${c.accepts}</td>
    <td>
      ${
        editing
          ? html`<form class="inline" onSubmit=${submit}>
              <input name="value" value=${c.value ?? ''} aria-label=${`New value of ${c.name}`} size="16" />
              <button type="submit">Save</button>
              <button type="button" class="link" onClick=${() => setEditing(false)}>Cancel</button>
            </form>`
          : html`<button type="button" class="link" onClick=${() => setEditing(true)} aria-label=${`Change ${c.name}`}>Change</button>`
      }
      ${c.own && html` <button type="button" class="link" onClick=${() => alter(null)} aria-label=${`Use the default of ${c.name}`}>Use the default</button>`}
      <${ErrorNote} error=${error} />
    </td>
  </tr>`;
}

export function TopicDetail({ name }) {
  const [params, set] = useSearch();
  const offset = Number(params.get('offset') ?? 0);
  const [data, error, reload] = useApi(`/api/topics/${enc(name)}${query({ offset, limit: PAGE })}`);
  const [deleteError, setDeleteError] = useState();
  const remove = async () => {
    if (!confirm(`Delete topic ${name} and all its messages?`)) return;
    try {
      await api(`/api/topics/${enc(name)}`, { method: 'DELETE' });
      navigate('/topics');
    } catch (err) {
      setDeleteError(err);
    }
  };
  return html`<h1>Topic <span class="name">${name}</span></h1>
    <p><a href=${`/topics/${enc(name)}/messages`}>Browse its messages</a> · <a href=${`/producers${query({ q: name })}`}>Its producers</a></p>
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<p>Topic id <code>${data.topicId}</code>, ${data.partitionCount} partition${data.partitionCount === 1 ? '' : 's'}.</p>
        <table>
          <caption>
            Partitions
          </caption>
          <thead>
            <tr>
              <th scope="col" class="num">Partition</th>
              ${
                data.nodes > 1 &&
                html`<th scope="col" class="num">Leader (epoch)</th>
                  <th scope="col">Replicas</th>
                  <th scope="col">In sync</th>`
              }
              <th scope="col" class="num">Log start</th>
              <th scope="col" class="num">Log end</th>
              <th scope="col" class="num">High watermark</th>
              <th scope="col" class="num">Last stable</th>
              <th scope="col" class="num">Size on disk</th>
              <th scope="col" class="num">Segments</th>
              <th scope="col">Browse</th>
            </tr>
          </thead>
          <tbody>
            ${data.partitions.items.map(
              (p) =>
                html`<tr data-partition=${p.partition}>
                  <td class="num">${p.partition}${p.failed ? html` <strong class="bad">failed</strong>` : ''}</td>
                  ${
                    p.leader !== undefined &&
                    html`<td class="num leader">${p.leader} (${p.leaderEpoch})</td>
                      <td class="replicas">${p.replicas.join(', ')}</td>
                      <td class="isr">${p.isr.join(', ')}</td>`
                  }
                  <td class="num">${p.logStartOffset}</td>
                  <td class="num">${p.logEndOffset}</td>
                  <td class="num">${p.highWatermark}</td>
                  <td class="num">${p.lastStableOffset}</td>
                  <td class="num">${formatBytes(p.sizeBytes ?? 0)}</td>
                  <td class="num">${p.segments}</td>
                  <td>
                    <a href=${`/topics/${enc(name)}/messages${query({ partition: p.partition })}`} aria-label=${`Messages of partition ${p.partition}`}
                      >Messages</a
                    >
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        <${LsoHolds} partitions=${data.partitions.items} />
        <${Pager}
          label="Partitions"
          total=${data.partitions.total}
          offset=${data.partitions.offset}
          count=${data.partitions.items.length}
          limit=${PAGE}
          go=${(o) => set({ offset: o })}
        />
        <table class="configs">
          <caption>
            Configs (bold: the topic's own; the rest are the broker's defaults)
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">Default</th>
              <th scope="col">Takes</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            ${data.configs.map((c) => html`<${ConfigRow} key=${c.name} topic=${name} c=${c} changed=${reload} />`)}
          </tbody>
        </table>
        ${
          data.internal
            ? html`<p class="hint">An internal topic: the broker's coordinators write it, and it cannot be deleted.</p>`
            : html`<section aria-labelledby="danger">
                <h2 id="danger">Delete</h2>
                <button type="button" class="danger" onClick=${remove}>Delete topic ${name}</button><${ErrorNote} error=${deleteError} />
              </section>`
        }`
    }`;
}
